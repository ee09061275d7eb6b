// What a package README's "## Try it offline" section holds, read the same way by the two suites
// that run it: against the workspace sources (repo/readme-examples) and from the packed tarballs
// installed with npm into an empty project (install/installed-quickstarts).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const OFFLINE_HEADING = "## Try it offline";
/**
 * How each README says its example was type-checked (under TypeScript 7.0.2 and 5.9.3, by
 * tests/install): no tsconfig, so TypeScript's defaults (`types: []` since 6) apply, and every
 * declaration read, skipLibCheck off. The command line must appear in the section verbatim.
 */
export const TSC_CHECK =
  "npx tsc --strict --skipLibCheck false --target es2022 --module nodenext quickstart.mts";

/** The bar for a first example. */
export const MAX_EXAMPLE_LINES = 20;

/**
 * What each package's offline example prints, by package folder. A package whose README gains
 * the section needs its line here: the suites fail until it has one.
 */
const EXPECTED_OUTPUT: Record<string, string> = {
  spec: [
    '{"type":"object","properties":{"screen":{"type":"string","enum":["home","settings"]}},"required":["screen"]}',
    '{"type":"atrium.tool-result","value":"home captured","images":[{"type":"image","image":"iVBORw0KGgo=","mediaType":"image/png"}]}',
    "settings is locked",
    "",
  ].join("\n"),
  agent: "Paris, by 6 °C\n",
  mcp: "add 5\n",
  chroma: "[ 'a' ]\n",
  chromafs: "/guides/install.md:3:Run `npm i @atrium/chromafs`.\ninstall.md\n\n",
  palace: "The Lisbon marathon is in October. (caroline/sports)\ntrue\n",
  python: "Paris, by 6 °C\n",
  microvm: "0 hello from Linux\n<Buffer 01 02 03>\n",
  kit: "[ 'PWD' ] /atrium\n",
};

export interface OfflinePackage {
  /** Folder under packages/, e.g. "agent". */
  dir: string;
  /** Its package name, e.g. "@atrium/agent". */
  name: string;
}

/** Every package under `packagesDir` whose README has the offline section, in folder order. */
export function packagesWithOfflineExample(packagesDir: string): OfflinePackage[] {
  return readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .filter((dir) => hasOfflineSection(readIfThere(join(packagesDir, dir, "README.md"))))
    .map((dir) => ({
      dir,
      name: (JSON.parse(readFileSync(join(packagesDir, dir, "package.json"), "utf8")) as { name: string })
        .name,
    }));
}

export function hasOfflineSection(readme: string): boolean {
  return readme.split("\n").includes(OFFLINE_HEADING);
}

export function expectedOutput(dir: string): string {
  const expected = EXPECTED_OUTPUT[dir];
  if (expected === undefined) {
    throw new Error(
      `packages/${dir}/README.md has a "${OFFLINE_HEADING}" example but no expected output: add what it prints under "${dir}" in tests/repo/readme-offline-example.ts`,
    );
  }
  return expected;
}

/** The first TypeScript block of the section: the example itself. */
export function offlineExample(readme: string): string {
  const block = fencedBlocks(offlineSection(readme)).find((fence) => fence.lang === "ts");
  if (!block) throw new Error(`no \`\`\`ts block in "${OFFLINE_HEADING}"`);
  return block.body;
}

/**
 * The packages the section's `npm i …` line installs, as written (names, or names with a
 * version): the line must name everything the example imports.
 */
export function installedPackages(readme: string): string[] {
  for (const block of fencedBlocks(offlineSection(readme)).filter((fence) => fence.lang === "sh")) {
    for (const line of block.body.split("\n")) {
      const words = line.trim().split(/\s+/);
      if (words[0] === "npm" && (words[1] === "i" || words[1] === "install")) {
        return words.slice(2).filter((word) => !word.startsWith("-"));
      }
    }
  }
  throw new Error(`no \`npm i …\` line in a \`\`\`sh block of "${OFFLINE_HEADING}"`);
}

/**
 * The JSON block the section asks to put in package.json before installing (such as chroma's
 * glibc pin in `overrides`), or {} when it has none.
 */
export function packageJsonAdditions(readme: string): Record<string, unknown> {
  const block = fencedBlocks(offlineSection(readme)).find((fence) => fence.lang === "json");
  return block ? (JSON.parse(block.body) as Record<string, unknown>) : {};
}

function offlineSection(readme: string): string {
  const section = readme.split(new RegExp(`^${OFFLINE_HEADING}$`, "m"))[1];
  if (section === undefined) throw new Error(`no "${OFFLINE_HEADING}" section`);
  return section.split(/^## /m)[0] as string;
}

/** Fenced blocks in order; a fence closes on a line of its own (an example may hold ``` inside a string). */
function fencedBlocks(markdown: string): { lang: string; body: string }[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    lang: match[1] as string,
    body: match[2] as string,
  }));
}

function readIfThere(path: string): string {
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}
