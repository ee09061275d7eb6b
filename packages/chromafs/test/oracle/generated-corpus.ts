import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { seededRandom } from "@atrium/bench";

/**
 * A second oracle corpus of another shape than Mintlify's docs, generated deterministically (a
 * seeded PRNG, fixed mtimes): folders eight deep, lines over 10 KB, non-ASCII file names and
 * text (accents, CJK, Cyrillic, Greek, an astral emoji), empty pages, pages without a trailing
 * newline, repeated lines for `uniq`, numeric columns for `sort -n`, `key: value` lines for
 * `cut`/`awk -F`.
 */
export interface GeneratedCorpus {
  dir: string;
  remove(): void;
}

/** mulberry32, seeded: the same corpus on every machine. */
const prng = seededRandom;

const WORDS = [
  "alpha",
  "beta",
  "gamma",
  "delta",
  "Kubernetes",
  "helm",
  "API",
  "key",
  "token",
  "café",
  "naïve",
  "Übung",
  "straße",
  "日本語",
  "文档",
  "搜索",
  "Привет",
  "мир",
  "λόγος",
  "ελληνικά",
  "emoji🚀",
  "x_y",
  "v2.1",
  "100",
  "42",
  "-7",
  "3.5",
  "error",
  "warning",
  "TODO",
  "fixme",
  "the",
  "a",
  "of",
  "to",
  "in",
  "ŒUVRE",
  "Ärger",
];
const NAMES = ["guide", "référence", "概要", "справка", "notes", "ñandú", "api", "deep", "logs", "données"];

export function writeGeneratedCorpus(seed = 17): GeneratedCorpus {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const dir = mkdtempSync(join(tmpdir(), "chromafs-generated-"));
  const files = new Map<string, string>();
  const line = (words: number) =>
    Array.from({ length: words }, () => pick(WORDS)).join(random() < 0.2 ? "  " : " ");
  const page = (lines: number) =>
    Array.from({ length: lines }, () => (random() < 0.1 ? "" : line(1 + Math.floor(random() * 12)))).join(
      "\n",
    );

  // Deep folders: a/b/c/d/e/f/g/h, a page at every level.
  let deep = "";
  for (const part of ["a", "b", "c", "d", "e", "f", "g", "h"]) {
    deep = deep ? `${deep}/${part}` : part;
    files.set(`${deep}/level-${deep.split("/").length}.md`, `${page(5)}\n`);
  }
  // Non-ASCII names, several per folder, some pages without a trailing newline.
  for (let i = 0; i < 24; i++) {
    const folder = pick(NAMES);
    const name = `${pick(NAMES)}-${i}.${i % 3 === 0 ? "mdx" : "md"}`;
    const text = page(3 + Math.floor(random() * 30));
    files.set(`${folder}/${name}`, i % 4 === 0 ? text : `${text}\n`);
  }
  // Long lines (over 10 KB), and a match near the end of one.
  files.set("long/one-line.md", `${Array.from({ length: 1800 }, () => pick(WORDS)).join(" ")} NEEDLE-END\n`);
  files.set(
    "long/mixed.md",
    `# Mixed\nshort line\n${Array.from({ length: 2500 }, () => pick(WORDS)).join(",")}\nlast line no newline`,
  );
  // Empty pages, and one that is only newlines.
  files.set("empty/nothing.md", "");
  files.set("empty/also-empty.mdx", "");
  files.set("empty/newlines.md", "\n\n\n");
  // Repeated lines for uniq and numbers for sort -n; key: value lines for cut and awk -F.
  files.set(
    "data/counts.md",
    `${Array.from({ length: 60 }, () => `${Math.floor(random() * 200) - 50} ${pick(WORDS)}`).join("\n")}\n`,
  );
  files.set(
    "data/repeats.md",
    `${Array.from({ length: 80 }, () => pick(["same", "same", "Same", "other", "  same", "ünïcode"])).join("\n")}\n`,
  );
  files.set(
    "data/pairs.md",
    `${Array.from({ length: 40 }, (_, i) => `key${i % 7}: ${pick(WORDS)}:${i}`).join("\n")}\n`,
  );
  files.set("README.md", "# Generated corpus\n\nSee data/, long/, empty/ and a/.\n");

  const base = Date.UTC(2026, 9, 1, 12, 0, 0);
  let n = 0;
  for (const [path, text] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    const mtime = new Date(base + n++ * 3_600_000);
    utimesSync(file, mtime, mtime);
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
