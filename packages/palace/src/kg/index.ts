export {
  KnowledgeGraphConflictError,
  KnowledgeGraphFormatError,
  KnowledgeGraphNotFoundError,
} from "../errors.js";
export { renderFact } from "./kg-fact-lines.js";
export { entityKey, normalizePredicate } from "./kg-names.js";
export {
  createKnowledgeGraphTables,
  DEFAULT_FACT_WING,
  KG_SCHEMA_VERSION,
  type KnowledgeGraphMigration,
} from "./kg-schema.js";
export { parseFactTime } from "./kg-time.js";
export type * from "./kg-types.js";
export { KnowledgeGraph, type KnowledgeGraphOptions } from "./knowledge-graph.js";
