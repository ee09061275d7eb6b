import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/**
 * The layer list of a package's ARCHITECTURE.md, and the imports of its `src/` that break it.
 * The list is a "## Layers" heading followed by numbered lines, bottom layer first, each naming
 * in backticks the folders (`name/`) and root files (`name.ts`) of `src/` in that layer. A module
 * may import its own layer and the layers before it, never one after; every folder and root file
 * of `src/` appears exactly once. (The same list feeds the dependency-cruiser configuration.)
 */

export interface LayerProblem {
  /** The importing file (relative to the package) or the layer list itself. */
  where: string;
  problem: string;
}

/** The layers, bottom first, each a list of `src/` entries ("agents/", "index.ts"). */
export function parseLayers(markdown: string): string[][] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.trim() === "## Layers");
  if (start < 0) return [];
  const layers: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    const match = /^(\d+)\. (.*)$/.exec(line);
    if (!match) {
      if (layers.length === 0 && line.trim() === "") continue;
      break;
    }
    if (Number(match[1]) !== layers.length + 1) break;
    layers.push([...(match[2] ?? "").matchAll(/`([^`]+)`/g)].map((name) => name[1] as string));
  }
  return layers;
}

/** Every problem with a package's layers: entries missing or listed twice, imports that go up. */
export function layerProblems(packageRoot: string): LayerProblem[] {
  const src = join(packageRoot, "src");
  const layers = parseLayers(readFileSync(join(packageRoot, "ARCHITECTURE.md"), "utf8"));
  const problems: LayerProblem[] = [];
  const layerOf = new Map<string, number>();
  layers.forEach((names, index) => {
    for (const name of names) {
      if (layerOf.has(name)) problems.push({ where: "ARCHITECTURE.md", problem: `${name} is listed twice` });
      layerOf.set(name, index + 1);
    }
  });
  const entries = readdirSync(src, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() || (isSource(entry.name) && !isTest(entry.name)))
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name));
  for (const entry of entries) {
    if (!layerOf.has(entry)) problems.push({ where: "ARCHITECTURE.md", problem: `${entry} is in no layer` });
  }
  for (const name of layerOf.keys()) {
    if (!entries.includes(name))
      problems.push({ where: "ARCHITECTURE.md", problem: `${name} is not in src/` });
  }
  for (const file of sources(src)) {
    const from = entryOf(src, file);
    for (const target of relativeImports(file)) {
      if (!target.startsWith(src + sep)) continue;
      const to = entryOf(src, target);
      const fromLayer = layerOf.get(from);
      const toLayer = layerOf.get(to);
      if (fromLayer !== undefined && toLayer !== undefined && toLayer > fromLayer) {
        problems.push({
          where: relative(packageRoot, file),
          problem: `imports ${relative(src, target)} (layer ${toLayer}) from layer ${fromLayer}`,
        });
      }
    }
  }
  return problems;
}

/** The packages that state their layers. */
export function packagesWithLayers(packagesDir: string): string[] {
  return readdirSync(packagesDir)
    .filter((name) => existsSync(join(packagesDir, name, "ARCHITECTURE.md")))
    .filter(
      (name) => parseLayers(readFileSync(join(packagesDir, name, "ARCHITECTURE.md"), "utf8")).length > 0,
    )
    .sort();
}

function isSource(name: string): boolean {
  return /\.[cm]?tsx?$/.test(name) && !name.endsWith(".d.ts");
}

function isTest(name: string): boolean {
  return /\.test\.[cm]?tsx?$/.test(name);
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && isSource(entry.name) && !isTest(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** The `src/` entry a file belongs to: its top folder ("agents/") or itself ("index.ts"). */
function entryOf(src: string, file: string): string {
  const [first, ...rest] = relative(src, file).split(sep);
  return rest.length > 0 ? `${first}/` : (first as string);
}

/** Files a module imports by relative path (static, `export … from`, and dynamic imports). */
function relativeImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [
    ...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)["'](\.{1,2}\/[^"']+)["']/gm),
  ];
  return specifiers.map((match) => resolve(dirname(file), (match[1] as string).replace(/\.js$/, ".ts")));
}
