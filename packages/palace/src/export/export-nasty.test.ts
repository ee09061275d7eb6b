import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TestPalaces } from "../../test/test-palaces.js";
import type { DrawerDraft } from "../drawers/drawer.js";
import { EXPORT_LINE_OVERHEAD_BYTES, exportLineBytes } from "../drawers/export-line.js";
import { DEFAULT_PALACE_LIMITS } from "../limits.js";
import type { Palace } from "../palace.js";
import { exportPalace } from "./export-palace.js";
import { importPalace } from "./import-palace.js";

/**
 * Issue 25: anything the API accepts exports and imports back. A palace is filled through the
 * API with the nastiest input it takes (drawn from a seeded generator, plus the limits' edges),
 * exported, imported into a new palace, and both must hold the same drawers byte for byte and
 * answer every query with the same hits.
 */

const palaces = new TestPalaces();
afterAll(() => palaces.cleanup());

/** Fragments no text handling gets right by accident. */
const FRAGMENTS = [
  "plain words",
  "😀", // a surrogate pair
  "👩‍👩‍👧‍👦", // a ZWJ sequence
  "🏳️‍🌈",
  "مرحبا بالعالم", // Arabic, right to left
  "שלום עולם", // Hebrew
  "\u202Eevil\u202C", // right-to-left override
  "\u200B\u200C\u200D\u2060", // zero-width characters
  "\uFEFF", // a byte order mark
  "\r\n",
  "\r",
  "\n\n",
  "\t",
  "\u0000", // NUL, fine in content
  "\u0001\u001F\u007F",
  "\u2028\u2029", // JSON-legal line separators, not JSON.stringify-escaped
  "e\u0301", // NFD é
  "\u00E9", // NFC é
  "ﬁ", // a compatibility ligature
  '"quoted" \\back\\slash\\ ',
  "</script>",
  '{"kind":"palace"}',
  "\uD834\uDD1E", // 𝄞, outside the BMP
  "Ω≈ç√∫",
  "  leading and trailing  ",
];

/** A small seeded generator (mulberry32): the same palace on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function nastyText(next: () => number, parts: number): string {
  let text = "";
  for (let at = 0; at < parts; at++) text += FRAGMENTS[Math.floor(next() * FRAGMENTS.length)];
  return `${text} word${Math.floor(next() * 1000)}`;
}

/** Names refuse control characters; everything else in the fragments is fair. */
function nastyName(next: () => number): string {
  const clean = FRAGMENTS.filter((fragment) => !/[\u0000-\u001F\u007F]/u.test(fragment));
  let name = "";
  for (let at = 0; at < 3; at++) name += clean[Math.floor(next() * clean.length)];
  return name;
}

async function allDrawers(palace: Palace) {
  const drawers = [];
  let cursor: string | undefined;
  do {
    const page = await palace.list({ limit: 1000, ...(cursor ? { cursor } : {}) });
    drawers.push(...page.drawers);
    cursor = page.nextCursor;
  } while (cursor);
  return drawers.sort((a, b) => (a.id < b.id ? -1 : 1));
}

describe("export then import of the nastiest input the API accepts", () => {
  it("gives back the same drawers, byte for byte, and the same search results", {
    timeout: 240_000,
  }, async () => {
    const limits = DEFAULT_PALACE_LIMITS;
    const original = await palaces.open();
    const next = random(25);
    const drafts: DrawerDraft[] = [];
    for (let at = 0; at < 60; at++) {
      drafts.push({
        content: nastyText(next, 1 + Math.floor(next() * 12)),
        wing: nastyName(next),
        room: nastyName(next),
        hall: nastyName(next),
        speaker: nastyName(next),
        turnId: nastyText(next, 2).replace(/[\u0000-\u001F\u007F]/gu, "_"),
        metadata: { [nastyName(next)]: nastyText(next, 5), n: at, ok: at % 2 === 0 },
      });
    }
    // The limits' edges: the longest content and names, 64 metadata keys.
    const longName = "😀".repeat(limits.maxNameChars / 2);
    drafts.push({
      content: "é".repeat(limits.maxDrawerChars),
      wing: longName,
      room: "ש".repeat(limits.maxNameChars),
      source: "\u200B".repeat(limits.maxNameChars),
      position: 0,
    });
    drafts.push({
      content: "meta",
      wing: "edge",
      room: "keys",
      metadata: Object.fromEntries(
        Array.from({ length: limits.maxMetadataKeys }, (_, at) => [`k${at}😀`, at]),
      ),
    });
    // Content of control characters (6 bytes each in JSON), as long as the line limit lets it be.
    const controlBase = { wing: "edge", room: "control", content: "" };
    const controlChars = Math.floor(
      (limits.maxImportLineBytes - exportLineBytes(controlBase) + EXPORT_LINE_OVERHEAD_BYTES) / 6,
    );
    const longestControl = {
      ...controlBase,
      content: "\u0001".repeat(Math.min(controlChars, limits.maxDrawerChars)),
    };
    drafts.push(longestControl);
    const filed = await original.file(drafts);
    expect(filed.every((result) => result.created)).toBe(true);

    // Metadata exactly at the line limit, written by an update: accepted, so it must import.
    const [target] = await original.file([{ wing: "edge", room: "update", content: "grows" }]);
    const probe = { wing: "edge", room: "update", hall: "general", content: "grows", metadata: { big: "" } };
    const room = limits.maxImportLineBytes - exportLineBytes(probe);
    await original.update(target?.id as string, { metadata: { big: "ä".repeat(Math.floor(room / 2)) } });
    await original.update(filed[0]?.id as string, { pinned: true });

    // Inputs the palace may refuse; whatever it accepts must come back too.
    let attempts = 0;
    for (const draft of <DrawerDraft[]>[
      { wing: "edge", room: "tries", content: "lone \uD800 surrogate" },
      { wing: "edge", room: "tries", content: "x", metadata: { note: "lone \uDC00" } },
      {
        wing: "edge",
        room: "tries",
        content: "big",
        metadata: { big: "x".repeat(limits.maxImportLineBytes) },
      },
      {
        wing: "edge",
        room: "tries",
        content: "\u0001".repeat(limits.maxDrawerChars),
        metadata: { pad: "x".repeat(500_000) },
      },
    ]) {
      const accepted = await original.file([draft]).then(
        () => true,
        () => false,
      );
      if (accepted) attempts++;
    }

    const file = join(await palaces.dir(), "nasty.jsonl");
    const exported = await exportPalace(original, file);
    expect(exported.drawers).toBe(drafts.length + 1 + attempts);
    const copy = await palaces.open();
    const imported = await importPalace(copy, file);
    expect(imported).toMatchObject({ drawers: drafts.length + 1 + attempts, skipped: 0 });

    expect(await allDrawers(copy)).toEqual(await allDrawers(original));
    const queries = [
      ...drafts.slice(0, 20).map((draft) => draft.content.slice(0, 60)),
      "😀",
      "مرحبا",
      "word7",
      "é",
      "quoted backslash",
    ];
    for (const query of queries) {
      // Each leg on its own, past the palace's size (so ties at a cut-off cannot differ): hits of
      // equal score may come in either order (the vector index breaks ties by its insertion
      // order, which an import changes, and the fused rank follows); scores and drawers must match.
      const strip = (hits: Awaited<ReturnType<Palace["search"]>>) =>
        hits
          .map((hit) => ({ id: hit.id, score: hit.score, content: hit.content }))
          .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
      for (const mode of ["bm25", "vector"] as const) {
        const before = strip(await original.search(query, { k: 200, mode }));
        expect(strip(await copy.search(query, { k: 200, mode }))).toEqual(before);
        if (mode === "vector") expect(before.length).toBe(drafts.length + 1 + attempts);
      }
    }
  });
});
