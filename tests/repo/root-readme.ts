// Reads the root README's "## Packages" section: its table, and the dependency graph drawn below
// it. A line of a form the reader does not know is an error, so the graph cannot grow a notation
// the test silently skips.

export interface PackageRow {
  /** `@atrium/spec`, `apps/demo`, `tests/`: what the first cell names. */
  label: string;
  /** The folder it links to, when it links. */
  link: string | undefined;
  what: string;
}

export interface GraphEdge {
  from: string;
  to: string;
  optional: boolean;
}

export interface DependencyGraph {
  edges: GraphEdge[];
  /** The workspaces of the `… → everything` line. */
  usesEverything: string[];
}

function packagesSection(readme: string): string {
  const section = readme.split(/^## Packages$/m)[1];
  if (section === undefined) throw new Error('README.md has no "## Packages" section');
  return section.split(/^## /m)[0] as string;
}

export function parsePackageTable(readme: string): PackageRow[] {
  const rows = packagesSection(readme)
    .split("\n")
    .filter((line) => line.startsWith("|"))
    .map((line) =>
      line
        .slice(1, -1)
        .split(" | ")
        .map((cell) => cell.trim()),
    )
    .filter(([first]) => first !== "package" && !/^-+$/.test(first ?? ""));
  return rows.map(([first = "", what = ""]) => {
    const linked = /^\[`([^`]+)`\]\(([^)]+)\)$/.exec(first);
    if (linked) return { label: linked[1] as string, link: linked[2] as string, what };
    const plain = /^`([^`]+)`$/.exec(first);
    if (plain) return { label: plain[1] as string, link: undefined, what };
    throw new Error(`README.md's package table: cannot read the first cell ${JSON.stringify(first)}`);
  });
}

export function parseDependencyGraph(readme: string): DependencyGraph {
  const section = packagesSection(readme);
  const after = section.split(/^How they depend on each other/m)[1];
  const block = after && /^```\n([\s\S]*?)^```$/m.exec(after)?.[1];
  if (!block) throw new Error('README.md has no ``` block after "How they depend on each other"');
  const edges: GraphEdge[] = [];
  let usesEverything: string[] = [];
  for (const line of block.split("\n").filter((text) => text.trim() !== "")) {
    const everything = /^(.+?)\s*→\s*everything\s*$/.exec(line);
    if (everything) {
      usesEverything = (everything[1] as string).split(",").map((node) => node.trim());
      continue;
    }
    // "(a → b, optional)": an optional dependency, beside the line's chain.
    let chain = line;
    for (const match of line.matchAll(/\(([^)]*)\)/g)) {
      const optional = /^\s*(\S+)\s*→\s*(\S+),\s*optional\s*$/.exec(match[1] as string);
      if (!optional) throw new Error(`README.md's graph: cannot read ${JSON.stringify(match[0])}`);
      edges.push({ from: optional[1] as string, to: optional[2] as string, optional: true });
      chain = chain.replace(match[0], "");
    }
    const nodes = chain.split("→").map((node) => node.trim());
    if (nodes.length < 2 || nodes.some((node) => !/^[\w./-]+$/.test(node)))
      throw new Error(`README.md's graph: cannot read the line ${JSON.stringify(line)}`);
    for (let i = 0; i + 1 < nodes.length; i++)
      edges.push({ from: nodes[i] as string, to: nodes[i + 1] as string, optional: false });
  }
  return { edges, usesEverything };
}
