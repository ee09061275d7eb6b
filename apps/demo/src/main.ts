/**
 * The composed demo does not exist yet. Until it does, this says so and lists what is built,
 * read from the packages themselves, so it never claims more than there is.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const packages = readdirSync(join(root, "packages")).sort();

console.log("Atrium demo: not built yet (the composed app arrives in a later issue).\n");
console.log("Packages in this checkout:");
for (const name of packages) {
  const manifest = JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8"));
  console.log(`  ${manifest.name.padEnd(18)} ${manifest.description}`);
}
console.log("\nSee README.md for what works today and `npm test` to run every test.");
