export type { FactView } from "./kg-tools.js";
export type { RecallToolHit } from "./memory-tools.js";
export { palaceTools } from "./palace-tools.js";
export type { PalaceToolsOptions } from "./tool-options.js";
