// The root README's "Packages" table and dependency graph, checked against the workspace's
// package.json files, so a package that lands, goes, or gains a dependency cannot leave them
// stale: the table lists every workspace, and the graph has exactly the @atrium dependencies there
// are (each arrow a real one, each real one drawn or implied through the arrows).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseDependencyGraph, parsePackageTable } from "./root-readme.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const readme = readFileSync(join(root, "README.md"), "utf8");

interface Manifest {
  name: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const manifestOf = (dir: string) =>
  JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as Manifest;
const foldersIn = (parent: string) =>
  readdirSync(join(root, parent), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${parent}/${entry.name}`)
    .sort();

/** Every workspace as the README names it: `agent` for packages/agent, `apps/demo`, `tests/`. */
const workspaces = new Map<string, { dir: string; manifest: Manifest }>([
  ...foldersIn("packages").map(
    (dir) => [dir.slice("packages/".length), { dir, manifest: manifestOf(dir) }] as const,
  ),
  ...foldersIn("apps").map((dir) => [dir, { dir, manifest: manifestOf(dir) }] as const),
  ["tests/", { dir: "tests", manifest: manifestOf("tests") }],
]);
const byPackageName = new Map([...workspaces].map(([node, { manifest }]) => [manifest.name, node]));
const packageNodes = [...workspaces.keys()].filter((node) => !node.includes("/"));

/** A workspace's @atrium dependencies by README name: required, and optional peers. */
function atriumDependencies(manifest: Manifest): { required: string[]; optional: string[] } {
  const meta = manifest.peerDependenciesMeta ?? {};
  const peers = Object.keys(manifest.peerDependencies ?? {});
  const toNode = (name: string) => byPackageName.get(name) ?? `(not a workspace: ${name})`;
  const atrium = (names: string[]) => names.filter((name) => name.startsWith("@atrium/"));
  return {
    required: atrium([
      ...Object.keys(manifest.dependencies ?? {}),
      ...peers.filter((p) => !meta[p]?.optional),
    ])
      .map(toNode)
      .sort(),
    optional: atrium(peers.filter((p) => meta[p]?.optional))
      .map(toNode)
      .sort(),
  };
}

describe("the root README's package table", () => {
  const rows = parsePackageTable(readme);

  it("lists every workspace once, linked to its folder", () => {
    const expected = [...workspaces].map(([node, { dir, manifest }]) =>
      node.includes("/")
        ? { label: node, link: node === "tests/" ? undefined : dir }
        : { label: manifest.name, link: dir },
    );
    expect(rows.map(({ label, link }) => ({ label, link }))).toEqual(
      expect.arrayContaining(expected.map((row) => expect.objectContaining(row))),
    );
    expect(rows.map((row) => row.label).sort()).toEqual(expected.map((row) => row.label).sort());
  });

  it("says what each one is", () => {
    for (const row of rows) expect(row.what.length, row.label).toBeGreaterThan(20);
  });
});

describe("the root README's dependency graph", () => {
  const graph = parseDependencyGraph(readme);
  const reachable = (from: string): Set<string> => {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length > 0) {
      const node = stack.pop() as string;
      for (const edge of graph.edges)
        if (edge.from === node && !edge.optional && !seen.has(edge.to)) {
          seen.add(edge.to);
          stack.push(edge.to);
        }
    }
    return seen;
  };

  it("has every package and nothing that is not one", () => {
    const drawn = new Set(graph.edges.flatMap((edge) => [edge.from, edge.to]));
    expect([...drawn].filter((node) => !workspaces.has(node))).toEqual([]);
    expect(packageNodes.filter((node) => !drawn.has(node))).toEqual([]);
  });

  it("draws only real dependencies, optional ones as optional", () => {
    for (const edge of graph.edges) {
      const deps = atriumDependencies((workspaces.get(edge.from) as { manifest: Manifest }).manifest);
      expect(
        (edge.optional ? deps.optional : deps.required).includes(edge.to),
        `${edge.from} → ${edge.to}${edge.optional ? " (optional)" : ""} is not a dependency in ${edge.from}/package.json`,
      ).toBe(true);
    }
  });

  it("draws or implies every dependency a package has", () => {
    for (const node of packageNodes) {
      const deps = atriumDependencies((workspaces.get(node) as { manifest: Manifest }).manifest);
      const through = reachable(node);
      expect(
        deps.required.filter((dep) => !through.has(dep)),
        `dependencies of ${node} the graph does not reach`,
      ).toEqual([]);
      const optional = graph.edges
        .filter((edge) => edge.from === node && edge.optional)
        .map((edge) => edge.to);
      expect(optional.sort(), `optional dependencies of ${node}`).toEqual(deps.optional);
    }
  });

  it("points nothing back up (no cycle)", () => {
    for (const node of packageNodes) expect(reachable(node).has(node), node).toBe(false);
  });

  it("says truly which workspaces use everything", () => {
    expect(graph.usesEverything.length).toBeGreaterThan(0);
    for (const node of graph.usesEverything) {
      const workspace = workspaces.get(node);
      expect(workspace, `${node} is not a workspace`).toBeDefined();
      const deps = atriumDependencies((workspace as { manifest: Manifest }).manifest).required;
      const through = new Set([...deps, ...deps.flatMap((dep) => [...reachable(dep)])]);
      expect(
        packageNodes.filter((pkg) => !through.has(pkg)),
        `packages ${node} does not use`,
      ).toEqual([]);
    }
    // Every workspace that is not a package (the demo, the tests) is on that line.
    expect(graph.usesEverything.sort()).toEqual(
      [...workspaces.keys()].filter((node) => node.includes("/")).sort(),
    );
  });
});
