#!/usr/bin/env node
// Every file the built code of a package reads at run time by a path relative to itself must be
// in that package's tarball. esbuild bundles imports but leaves `new URL("./x", import.meta.url)`
// alone, so a worker entry, a `.cjs` helper or a `.c`/`.py` asset named that way is found only
// when that line runs, on a user's machine, if the build did not copy it or `files` left it out.
// This reads each packed tarball's JavaScript and checks every such reference against the
// tarball's own file list, in a second or two, without running anything. (It is how
// @atrium/microvm's allow_hosts relay would have been caught: allow-list.ts asks for
// `new URL("./stdio-tcp-forward.cjs", import.meta.url)`, tsup bundles it into dist/chunk-*.js and
// copies no .cjs, so the check names dist/stdio-tcp-forward.cjs as missing.)
//
//   node .ci/runtime-files.mjs      checks HEAD's packed set (.ci/packed-tarballs.mjs); exit 1 names each missing file
//
// A reference is `new URL("<relative path>", base)` or `import.meta.resolve("<relative path>")`,
// where base is `import.meta.url` or a name the file binds to it (`const here = import.meta.url`).
// References inside one array literal are alternatives (a build's path, then a checkout's): one of
// them must exist. A `.ts` target is the branch that runs from sources (Node 20 cannot load it
// from a build) and is not checked.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { packedHead, repoRoot } from "./packed-tarballs.mjs";

const CODE = /\.(m|c)?js$/;
const SOURCE_ONLY = /\.(m|c)?tsx?$/;

/** The relative paths `code` reaches at run time, each group a list of alternatives. */
export function runtimeReferences(code) {
  const bases = ["import\\.meta\\.url"];
  for (const match of code.matchAll(/\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*import\.meta\.url\b/g))
    bases.push(match[1]);
  // A relative path in quotes; `quote` is the number of the group holding its opening quote.
  const literal = (quote) => `${String.raw`(["'\`])(\.{1,2}\/[^"'\`$]*)`}\\${quote}`;
  const reference = new RegExp(
    String.raw`new URL\(\s*${literal(1)}\s*,\s*(?:${bases.join("|")})\s*\)|import\.meta\.resolve\(\s*${literal(3)}\s*\)`,
    "g",
  );
  const found = [...code.matchAll(reference)].map((match) => ({
    path: match[2] ?? match[4],
    index: match.index,
    end: match.index + match[0].length,
  }));
  // Alternatives: the references inside one array literal that holds nothing but them.
  const groups = [];
  const grouped = new Set();
  for (const array of code.matchAll(/\[([^[\]]*)\]/g)) {
    const inside = found.filter((ref) => ref.index > array.index && ref.end < array.index + array[0].length);
    if (inside.length < 2) continue;
    groups.push(inside.map((ref) => ref.path));
    for (const ref of inside) grouped.add(ref);
  }
  for (const ref of found) if (!grouped.has(ref)) groups.push([ref.path]);
  return groups
    .map((group) => group.filter((path) => !SOURCE_ONLY.test(path)))
    .filter((group) => group.length > 0);
}

/** The source file a built file's reference came from, through its source map, when it has one. */
function sourceOf(packageDir, builtFile, path) {
  const map = join(packageDir, `${builtFile}.map`);
  if (!existsSync(map)) return undefined;
  const { sources = [], sourcesContent = [] } = JSON.parse(readFileSync(map, "utf8"));
  const index = sourcesContent.findIndex((content) => content?.includes(path));
  return index >= 0 ? posix.join(posix.dirname(builtFile), sources[index]) : undefined;
}

/** The problems of one tarball: a line per reference none of whose alternatives it holds. */
export function checkTarball(tarball) {
  const files = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.startsWith("package/") && !line.endsWith("/"))
    .map((line) => line.slice("package/".length));
  const present = new Set(files);
  const isPresent = (path) => present.has(path) || files.some((file) => file.startsWith(`${path}/`));
  const temp = mkdtempSync(join(tmpdir(), "atrium-runtime-files-"));
  try {
    execFileSync("tar", ["-xzf", tarball, "-C", temp]);
    const packageDir = join(temp, "package");
    const { name } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
    const problems = [];
    for (const file of files.filter((path) => CODE.test(path))) {
      const code = readFileSync(join(packageDir, file), "utf8");
      for (const group of runtimeReferences(code)) {
        const targets = group.map((path) => posix.normalize(posix.join(posix.dirname(file), path)));
        if (targets.some(isPresent)) continue;
        const from = sourceOf(packageDir, file, group[0]);
        problems.push(
          `${name}: ${file}${from ? ` (from ${from})` : ""} reads ${group.map((path) => JSON.stringify(path)).join(" or ")} at run time, but the tarball has no ${targets.join(" or ")}`,
        );
      }
    }
    return { name, problems };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const set = packedHead(repoRoot, (message) => console.error(`runtime-files: ${message}`));
  const problems = set.packages.flatMap((pkg) => checkTarball(pkg.tarball).problems);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  for (const problem of problems) console.error(`  ✗ ${problem}`);
  if (problems.length > 0) {
    console.error(
      `runtime-files: ${problems.length} file(s) the built code reads at run time are missing from the tarballs of ${set.commit.slice(0, 7)} (${seconds} s); add them to the build (tsup) or to "files"`,
    );
    process.exit(1);
  }
  console.log(
    `runtime-files: every runtime file the built code refers to is in its tarball (${set.packages.length} packages, ${seconds} s)`,
  );
}
