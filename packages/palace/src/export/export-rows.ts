import type { Drawer } from "../drawers/drawer.js";
import type { TunnelRow } from "../tunnels/tunnel-types.js";

/** Format of the JSONL export; an import refuses a newer one. */
export const EXPORT_FORMAT_VERSION = 1;

/**
 * Who holds a drawer besides its own `source` (written only when someone does): other mined
 * sources with the same text, and whether it was also filed directly. Exports without these
 * fields (older ones) import as held by their own source only.
 */
export interface DrawerHolding {
  alsoHeldBy?: { source: string; position: number | null }[];
  filedDirectly?: true;
}

/**
 * One line of a palace export. The first line is the header; then drawers (filing order), mined
 * sources, the knowledge graph's rows (`kind: "kg-…"`, written and read by `KnowledgeGraph`), and
 * the explicit tunnels (`kind: "tunnel"`, written and read by `Tunnels`).
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
      /**
       * True when mined source keys carry their kind (`project:`, `convo:`; schema v4). An
       * export without it is older: its keys are given their kind on import.
       */
      sourceKinds?: true;
    }
  | ({ kind: "drawer" } & Drawer & DrawerHolding)
  /** More holders of the drawer on the line before (one held by too many sources for one line). */
  | { kind: "holders"; id: string; alsoHeldBy: NonNullable<DrawerHolding["alsoHeldBy"]> }
  | {
      kind: "source";
      key: string;
      contentHash: string;
      drawerCount: number;
      minedAt: string;
      origin?: string;
    }
  | TunnelRow;
