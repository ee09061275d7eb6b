#!/usr/bin/env node
// `npm run pack`: every public package of this checkout built and packed (`pnpm pack`, as
// `pnpm publish` would pack it) into one folder, dist-packages/, then the npm line that installs
// each from there. Until the packages are on the public registry, this is how a project outside
// the clone gets them: a tarball's @atrium dependencies are not on any registry, so its line
// passes their tarballs too.
//
//   node .ci/pack-packages.mjs [folder]     packs into folder (default dist-packages/)
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildPackages, packPackage, publicPackages, repoRoot, toolEnv } from "./packed-tarballs.mjs";

/**
 * The tarballs `name` needs, its own first: its @atrium dependencies and required peers,
 * transitively (an optional peer is left out, as a user who did not name it goes without it).
 */
export function tarballsFor(packs, name) {
  const byName = new Map(packs.map((pack) => [pack.manifest.name, pack]));
  const seen = new Set();
  const visit = (current) => {
    const pack = byName.get(current);
    if (!pack || seen.has(current)) return;
    seen.add(current);
    const { dependencies = {}, peerDependencies = {}, peerDependenciesMeta = {} } = pack.manifest;
    const peers = Object.keys(peerDependencies).filter((peer) => !peerDependenciesMeta[peer]?.optional);
    for (const dep of [...Object.keys(dependencies), ...peers]) if (dep.startsWith("@atrium/")) visit(dep);
  };
  visit(name);
  return [...seen].map((each) => byName.get(each).tarball);
}

export function packAll(root, dest, log = () => {}) {
  const packages = publicPackages(root);
  log(`building ${packages.length} packages (pnpm -r build)`);
  buildPackages(
    root,
    packages.map((pkg) => pkg.name),
  );
  // Only this run's tarballs: an older version left in the folder would be installed beside it.
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  return packages.map((pkg) => {
    log(`packing ${pkg.name}`);
    return packPackage(pkg.path, dest);
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dest = resolve(repoRoot, process.argv[2] ?? "dist-packages");
  process.env.PATH = toolEnv(repoRoot).PATH;
  try {
    const packs = packAll(repoRoot, dest, (message) => console.error(`pack: ${message}`));
    const shown = relative(process.cwd(), dest) || ".";
    console.log(`\nPacked ${packs.length} packages into ${shown}/ (${readdirSync(dest).length} tarballs).`);
    console.log("In your project, install a package with the tarballs of the @atrium packages it needs:\n");
    for (const { manifest } of packs.sort((a, b) => a.manifest.name.localeCompare(b.manifest.name)))
      console.log(`  npm i ${tarballsFor(packs, manifest.name).join(" ")}   # ${manifest.name}`);
    console.log(
      "\nEach package's README gives what else its install needs (zod, a package.json pin, Debian packages).",
    );
  } catch (error) {
    console.error(`pack: ${error.message}`);
    process.exit(1);
  }
}
