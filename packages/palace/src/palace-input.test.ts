import { afterAll, describe, expect, it } from "vitest";
import { TEST_STORE, TestPalaces } from "../test/test-palaces.js";
import { MemoryDrawerSink } from "./mining/memory-drawer-sink.js";
import { mine } from "./mining/mine.js";

/**
 * Issue 25: what the palace refuses at write time, so nothing it stores collides or fails to
 * export and import back. Names refuse control characters (a NUL made ids collide across
 * wings); text refuses lone surrogates (stored as U+FFFD, no longer byte-exact); a drawer whose
 * export line would exceed the import's line limit is refused when written.
 */

const palaces = new TestPalaces();
afterAll(() => palaces.cleanup());

const NUL_IN_NAME =
  "holds the control character U+0000 (NUL) at index 6; names cannot hold control characters (U+0000 to U+001F, U+007F), remove it";

describe("names refuse control characters", () => {
  it("refuses the NUL collision: victim + b\\0c is filed, victim\\0b + c is refused instead of silently not filed", async () => {
    const palace = await palaces.open();
    if (TEST_STORE === "postgres") {
      // PostgreSQL's text cannot hold NUL: the drawer is refused whole, by name, not mangled.
      await expect(palace.file([{ wing: "victim", room: "r", content: "b\0c" }])).rejects.toThrow(
        "PostgreSQL cannot keep the NUL character (U+0000) in text; remove it from the drawer (a SQLite palace keeps it)",
      );
      expect((await palace.status()).drawers).toBe(0);
      return;
    }
    const [first] = await palace.file([{ wing: "victim", room: "r", content: "b\0c" }]);
    expect(first?.created).toBe(true);
    await expect(palace.file([{ wing: "victim\0b", room: "r", content: "c" }])).rejects.toThrow(
      `drafts[0].wing: ${NUL_IN_NAME}`,
    );
    expect((await palace.get(first?.id as string))?.content).toBe("b\0c");
  });

  it("refuses control characters in every name a draft, an update or a mining run takes", async () => {
    const palace = await palaces.open();
    const base = { wing: "w", room: "r", content: "text" };
    await expect(palace.file([{ ...base, room: "a\nb" }])).rejects.toThrow(
      "drafts[0].room: holds the control character U+000A at index 1; names cannot hold control characters (U+0000 to U+001F, U+007F), remove it",
    );
    await expect(palace.file([{ ...base, speaker: "x\u007f" }])).rejects.toThrow(
      "drafts[0].speaker: holds the control character U+007F at index 1",
    );
    const [filed] = await palace.file([base]);
    await expect(palace.update(filed?.id as string, { hall: "h\u0001" })).rejects.toThrow(
      "hall: holds the control character U+0001 at index 1",
    );
    await expect(palace.update(filed?.id as string, { source: "victim\0b" })).rejects.toThrow(
      `source: ${NUL_IN_NAME}`,
    );
    await expect(mine(new MemoryDrawerSink(), ".", { mode: "project", wing: "victim\0b" })).rejects.toThrow(
      `wing: ${NUL_IN_NAME}`,
    );
  });
});

describe("text refuses lone surrogates", () => {
  it("in content, names, metadata keys and values, and knowledge-graph names", async () => {
    const palace = await palaces.open();
    const base = { wing: "w", room: "r", content: "text" };
    const lone = "which UTF-8 cannot store; send well-formed Unicode (pair the surrogate or remove it)";
    await expect(palace.file([{ ...base, content: "ab\uD800" }])).rejects.toThrow(
      `drafts[0].content: holds a lone surrogate U+D800 at index 2, ${lone}`,
    );
    await expect(palace.file([{ ...base, wing: "\uDC00w" }])).rejects.toThrow(
      `drafts[0].wing: holds a lone surrogate U+DC00 at index 0, ${lone}`,
    );
    await expect(palace.file([{ ...base, metadata: { note: "x\uDBFF" } }])).rejects.toThrow(
      `drafts[0].metadata.note: holds a lone surrogate U+DBFF at index 1, ${lone}`,
    );
    await expect(palace.file([{ ...base, metadata: { "k\uD83D": 1 } }])).rejects.toThrow(
      `drafts[0].metadata key "k\\ud83d": holds a lone surrogate U+D83D at index 1, ${lone}`,
    );
    // A surrogate pair is one character (an emoji) and is kept byte-exact.
    const [emoji] = await palace.file([{ ...base, content: "ok \uD83D\uDE00" }]);
    expect((await palace.get(emoji?.id as string))?.content).toBe("ok 😀");
    expect(() => palace.kg.add({ subject: "Ana\uD800", predicate: "knows", object: "Bo" })).toThrow(
      "subject holds a lone surrogate, which UTF-8 cannot store; send well-formed Unicode",
    );
  });
});

describe("a drawer must fit one import line", () => {
  it("refuses at write time a drawer whose export line would exceed maxImportLineBytes, naming the limit", async () => {
    const palace = await palaces.open({ limits: { maxImportLineBytes: 20_000 } });
    const base = { wing: "w", room: "r", content: "text" };
    // 3,200 control characters take 6 bytes each in JSON: 19,200 + the fixed fields' 1,024 > 20,000.
    await expect(palace.file([{ ...base, content: "\u0001".repeat(3_200) }])).rejects.toThrow(
      "drafts[0]: would take 20260 bytes as an export line, more than maxImportLineBytes (20000), so its export could not be imported; shorten its content or metadata",
    );
    await expect(palace.file([{ ...base, metadata: { big: "é".repeat(10_000) } }])).rejects.toThrow(
      "drafts[0]: would take 21086 bytes as an export line, more than maxImportLineBytes (20000)",
    );
    const [filed] = await palace.file([base]);
    const id = filed?.id as string;
    await expect(palace.update(id, { metadata: { big: "x".repeat(19_000) } })).rejects.toThrow(
      `drawer ${id}: would take 20103 bytes as an export line, more than maxImportLineBytes (20000)`,
    );
    expect((await palace.get(id))?.metadata).toBeUndefined();
  });
});

describe("drawer times must exist", () => {
  it("refuses 2024-02-30 and 2024-13-01 as a draft's timestamp, saying why", async () => {
    const palace = await palaces.open();
    const base = { wing: "w", room: "r", content: "text" };
    await expect(palace.file([{ ...base, timestamp: "2024-02-30" }])).rejects.toThrow(
      'drafts[0].timestamp: "2024-02-30" is not a real date: February 2024 has 29 days, not 30; write e.g. 2024-05-01T09:30:00Z',
    );
    await expect(palace.file([{ ...base, timestamp: "2024-13-01T10:00:00Z" }])).rejects.toThrow(
      'drafts[0].timestamp: "2024-13-01T10:00:00Z" is not a real date: month 13 does not exist (months run 01 to 12); write e.g. 2024-05-01T09:30:00Z',
    );
  });
});
