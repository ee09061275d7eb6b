import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");

/** The layers of ARCHITECTURE.md: each entry of `src/` (a folder ends in `/`) to its layer number. */
function layers(): Map<string, number> {
  const text = readFileSync(join(root, "ARCHITECTURE.md"), "utf8");
  const section = text.split("\n## Layers\n")[1]?.split("\n## ")[0] ?? "";
  const layerOf = new Map<string, number>();
  for (const line of section.split("\n")) {
    const numbered = /^(\d+)\. (.*)$/.exec(line);
    if (!numbered) continue;
    for (const [, name] of (numbered[2] as string).matchAll(/`([^`]+)`/g)) {
      expect(layerOf.has(name as string), `${name} listed twice`).toBe(false);
      layerOf.set(name as string, Number(numbered[1]));
    }
  }
  return layerOf;
}

/** Every TypeScript source under `src/` but the tests, with the `src/` files it imports. */
function imports(): { file: string; targets: string[] }[] {
  const files = readdirSync(src, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .sort();
  return files.map((file) => {
    const text = readFileSync(join(src, file), "utf8");
    const specifiers = [...text.matchAll(/(?:from\s*|import\s*\(\s*|^import\s+)"(\.{1,2}\/[^"]+)"/gm)];
    const targets = specifiers.map(([, specifier]) =>
      relative(src, resolve(src, dirname(file), (specifier as string).replace(/\.js$/, ".ts"))),
    );
    return { file, targets };
  });
}

/** The entry of `src/` a path belongs to: `grep/` for `grep/gnu/x.ts`, `index.ts` for itself. */
const entryOf = (path: string) => (path.includes("/") ? `${path.split("/")[0]}/` : path);

describe("ARCHITECTURE.md's layers", () => {
  it("list every folder and root file of src/ once", () => {
    const entries = readdirSync(src, { withFileTypes: true }).map((entry) =>
      entry.isDirectory() ? `${entry.name}/` : entry.name,
    );
    expect([...layers().keys()].sort()).toEqual(entries.sort());
  });

  it("hold: no module imports one of a later layer, and nothing imports from outside src/", () => {
    const layerOf = layers();
    const upward: string[] = [];
    for (const { file, targets } of imports()) {
      for (const target of targets) {
        if (target.startsWith("..")) upward.push(`${file} → ${target} (outside src/)`);
        else if ((layerOf.get(entryOf(target)) ?? 0) > (layerOf.get(entryOf(file)) ?? 0))
          upward.push(`${file} → ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it("keep grep/'s subfolders out of each other's way: gnu/ and index/ stand alone, accelerate/ uses gnu/", () => {
    const allowed: Record<string, string[]> = { gnu: [], index: [], accelerate: ["gnu"] };
    const crossing: string[] = [];
    for (const { file, targets } of imports()) {
      const from = /^grep\/([^/]+)\//.exec(file)?.[1];
      if (!from) continue;
      for (const target of targets) {
        const to = /^grep\/([^/]+)\//.exec(target)?.[1];
        const topFile = target.startsWith("grep/") && to === undefined;
        if ((to !== undefined && to !== from && !allowed[from]?.includes(to)) || topFile)
          crossing.push(`${file} → ${target}`);
      }
    }
    expect(crossing).toEqual([]);
  });
});
