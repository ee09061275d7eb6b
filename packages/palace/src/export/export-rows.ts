import type { Drawer } from "../drawers/drawer.js";

/** Format of the JSONL export; an import refuses a newer one. */
export const EXPORT_FORMAT_VERSION = 1;

/**
 * One line of a palace export. The first line is the header; then drawers (filing order), mined
 * sources, and the knowledge graph's rows (`kind: "kg-…"`, written and read by `KnowledgeGraph`).
 */
export type PalaceExportRow =
  | {
      kind: "palace";
      format: number;
      name: string;
      embedding: string;
      identity?: string;
      exportedAt: string;
      /** palace.json keys other modules keep there (a rooms config, ...). */
      settings?: Record<string, unknown>;
    }
  | ({ kind: "drawer" } & Drawer)
  | { kind: "source"; key: string; contentHash: string; drawerCount: number; minedAt: string };
