import { ValidationError } from "@atrium/spec";
import { z } from "zod";
import { invalidInput, PalaceError } from "../errors.js";
import { parseRoomRules } from "../mining/rooms.js";
import { EXPORT_FORMAT_VERSION } from "./export-rows.js";

/**
 * An export's first line, checked before anything is read into a palace. `settings` are the
 * palace.json keys other modules keep there; each is checked on its own (a rooms list as the
 * miners parse it) and no other key is taken: the header once went into palace.json unchecked,
 * so an export could set any key, a `__proto__` one, or spread a string into keys "0", "1", ...
 */
export interface ExportHeader {
  kind: "palace";
  format: number;
  name: string;
  embedding: string;
  identity?: string;
  exportedAt?: string;
  settings?: ExportSettings;
  /** Mined source keys carry their kind (see `PalaceExportRow`); absent in older exports. */
  sourceKinds?: true;
}

export interface ExportSettings {
  /** The miners' rooms config (see `parseRoomRules`), as it was in palace.json. */
  rooms?: unknown[];
}

/** The settings an import knows; any other key is refused, naming the ones it takes. */
const SETTING_KEYS = ["rooms"] as const;

const settingsSchema = z.strictObject(
  {
    rooms: z
      .array(z.unknown())
      .superRefine((rooms, context) => {
        try {
          parseRoomRules(rooms);
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          context.addIssue({ code: "custom", message: error.message });
        }
      })
      .optional(),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `${issue.keys.map((key) => JSON.stringify(key)).join(", ")} ${issue.keys.length === 1 ? "is not a setting" : "are not settings"} an import takes (it takes: ${SETTING_KEYS.join(", ")})`
        : "must be an object of settings",
  },
);

const headerSchema = z.object({
  kind: z.literal("palace"),
  format: z.unknown(),
  name: z.string().min(1),
  embedding: z.string().min(1),
  identity: z.string().optional(),
  exportedAt: z.string().optional(),
  settings: settingsSchema.optional(),
  sourceKinds: z.literal(true).optional(),
});

/** Checks `row` (the first line of `where`, parsed) as an export header. */
export function parseExportHeader(row: unknown, where: string): ExportHeader {
  if (typeof row !== "object" || row === null || (row as { kind?: unknown }).kind !== "palace") {
    throw invalidInput(where, 'must be the export header ({"kind":"palace",...}); is this a palace export?');
  }
  // The format first: a newer export's other fields may differ, and that is the message to give.
  const { format } = row as { format?: unknown };
  if (typeof format !== "number" || !Number.isInteger(format) || format < 1) {
    throw invalidInput(
      `${where}.format`,
      `must be the integer ${EXPORT_FORMAT_VERSION} (the export format), got ${JSON.stringify(format) ?? "nothing"}; is this a palace export?`,
    );
  }
  if (format > EXPORT_FORMAT_VERSION) {
    throw new PalaceError(
      "palace/format",
      `${where}: export format ${format} is newer than this @atrium/palace reads (${EXPORT_FORMAT_VERSION}); upgrade @atrium/palace`,
    );
  }
  const result = headerSchema.safeParse(row);
  if (!result.success) {
    const issue = result.error.issues[0] as z.core.$ZodIssue;
    const path = issue.path.map(String).join(".");
    throw invalidInput(path === "" ? where : `${where}.${path}`, issue.message);
  }
  return result.data as ExportHeader;
}
