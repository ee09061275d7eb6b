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
console.log(`
What runs today, offline:
  an agent (scripted model, real QuickJS sandbox):
    .ci/pnpm --filter @atrium/agent exec tsx --conditions=@atrium/source src/cli/main.ts \\
      run "What is 6 times 7?" --model scripted:test/fixtures/models/scripted-replies.json
  the docs filesystem over the Mintlify corpus (a plain folder store; Chroma with --path):
    .ci/pnpm --filter @atrium/chromafs exec tsx --conditions=@atrium/source src/cli/main.ts \\
      sh --dir ../../fixtures/corpora/mintlify-docs -c 'grep -rl "API key" / | head -3'

See README.md for what works today and \`npm test\` to run every test.`);
