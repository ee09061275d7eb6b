// The layers of ARCHITECTURE.md as dependency-cruiser rules (.dependency-cruiser.cjs applies them to
// this repository): `npx depcruise packages apps --config` fails on an import that runs up them.
// Two kinds:
//  - between packages: each package imports only the packages below it (PACKAGE_LAYERS, the
//    drawing in ARCHITECTURE.md), and only through their entry points;
//  - inside a package: its `ARCHITECTURE.md` lists its folders (and root files) bottom first
//    under "## Layers"; a module imports its own layer and the ones listed before it.
// tests/repo/architecture.test.ts runs this, and checks that every folder is listed.
const { existsSync, readdirSync, readFileSync } = require("node:fs");
const { join } = require("node:path");

/** Which workspace packages each may import (what its package.json may depend on). */
const PACKAGE_LAYERS = {
  spec: [],
  kit: ["spec"],
  mcp: ["spec", "kit"],
  chroma: ["spec", "kit"],
  agent: ["spec", "kit", "mcp"],
  python: ["spec", "kit"],
  microvm: ["spec", "kit"],
  chromafs: ["spec", "kit", "chroma", "mcp"],
  palace: ["spec", "kit", "chroma", "mcp"],
};

/**
 * One package's layers from its ARCHITECTURE.md: each numbered line of the "## Layers" section,
 * the backticked names it starts with (`folder/`, `file.ts`, or `*.ts` for the root files no
 * other line names).
 */
function packageLayers(dir) {
  const file = join(dir, "ARCHITECTURE.md");
  if (!existsSync(file)) return undefined;
  const section = readFileSync(file, "utf8")
    .split(/^## Layers\s*$/m)[1]
    ?.split(/^## /m)[0];
  if (!section) return undefined;
  const layers = [];
  for (const line of section.split("\n")) {
    const listed = /^\d+\.\s+((?:`[^`]+`(?:\s*,\s*|\s+|$))+)/.exec(line.trim());
    if (listed) layers.push([...listed[1].matchAll(/`([^`]+)`/g)].map((match) => match[1]));
  }
  return layers;
}

function escapeRegex(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The path pattern of one layer's names inside `src` (a `*.ts` entry expands to the unlisted root files). */
function layerPattern(srcDir, names, allNames) {
  const parts = [];
  for (const name of names) {
    if (name === "*.ts") {
      for (const entry of readdirSync(srcDir)) {
        if (entry.endsWith(".ts") && !allNames.includes(entry)) parts.push(`${escapeRegex(entry)}$`);
      }
    } else if (name.endsWith("/")) {
      parts.push(escapeRegex(name));
    } else {
      parts.push(`${escapeRegex(name)}$`);
    }
  }
  return parts.length === 0 ? undefined : `(${parts.join("|")})`;
}

/** Every package's entry modules (the sources its package.json `exports` name), as path patterns. */
function entryPoints(root) {
  const patterns = [];
  for (const pkg of readdirSync(join(root, "packages"))) {
    const manifest = join(root, "packages", pkg, "package.json");
    if (!existsSync(manifest)) continue;
    const exports = JSON.parse(readFileSync(manifest, "utf8")).exports ?? {};
    for (const target of Object.values(exports)) {
      const source = typeof target === "object" && target !== null ? target["@atrium/source"] : undefined;
      if (typeof source === "string")
        patterns.push(`^packages/${escapeRegex(pkg)}/${escapeRegex(source.replace(/^\.\//, ""))}$`);
    }
  }
  return patterns;
}

function insideRules(root) {
  const rules = [];
  for (const base of ["packages", "apps"]) {
    const parent = join(root, base);
    if (!existsSync(parent)) continue;
    for (const pkg of readdirSync(parent)) {
      const dir = join(parent, pkg);
      const layers = packageLayers(dir);
      if (!layers) continue;
      const srcDir = join(dir, "src");
      const allNames = layers.flat();
      const src = `^${base}/${escapeRegex(pkg)}/src/`;
      for (let index = 0; index < layers.length - 1; index++) {
        const from = layerPattern(srcDir, layers[index], allNames);
        const above = layerPattern(srcDir, layers.slice(index + 1).flat(), allNames);
        if (!from || !above) continue;
        rules.push({
          name: `${pkg}-layer-${index + 1}`,
          comment: `${base}/${pkg}/ARCHITECTURE.md: layer ${index + 1} (${layers[index].join(", ")}) imports nothing listed after it`,
          severity: "error",
          from: { path: `${src}${from}`, pathNot: "\\.test\\.ts$" },
          to: { path: `${src}${above}` },
        });
      }
    }
  }
  return rules;
}

const betweenPackages = Object.entries(PACKAGE_LAYERS).map(([pkg, allowed]) => ({
  name: `${pkg}-imports-only-below`,
  comment: `@atrium/${pkg} may import ${allowed.length ? allowed.map((name) => `@atrium/${name}`).join(", ") : "no other Atrium package"} (ARCHITECTURE.md)`,
  severity: "error",
  from: { path: `^packages/${pkg}/(src|bin)/`, pathNot: "\\.test\\.ts$" },
  to: {
    path: "^packages/([^/]+)/",
    pathNot: [`^packages/${pkg}/`, ...allowed.map((name) => `^packages/${name}/`)],
  },
}));

/** The configuration for the repository at `root` (a test builds one for a scratch tree). */
function configFor(root) {
  return {
    forbidden: [...forbiddenRules(root)],
    options: OPTIONS,
  };
}

function forbiddenRules(root) {
  return [
    ...betweenPackages,
    {
      name: "entry-points-only",
      comment: "a package reaches another only through its entry points (package.json exports)",
      severity: "error",
      from: { path: "^packages/([^/]+)/src/" },
      to: {
        path: "^packages/([^/]+)/src/",
        pathNot: ["^packages/$1/src/", ...entryPoints(root)],
      },
    },
    ...insideRules(root),
  ];
}

const OPTIONS = {
  doNotFollow: { path: "node_modules" },
  exclude: { path: ["/dist/", "node_modules"] },
  tsPreCompilationDeps: true,
  tsConfig: { fileName: "tsconfig.base.json" },
  enhancedResolveOptions: {
    conditionNames: ["@atrium/source", "import", "types", "default"],
    exportsFields: ["exports"],
    extensions: [".ts", ".tsx", ".js", ".mjs"],
  },
};

module.exports = { configFor, packageLayers, PACKAGE_LAYERS };
