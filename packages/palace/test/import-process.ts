/**
 * A test helper run as its own process (never imported): imports `file` into the palace in `dir`
 * and prints one JSON line, { error, maxRssMb }, so a test can see what an import cost in memory.
 *
 *   node --conditions=@atrium/source --import tsx import-process.ts <dir> <file> <chromaUrl>
 */
import { errorMessage } from "@atrium/spec";
import { importPalace } from "../src/export/import-palace.js";
import { openPalace } from "../src/open-palace.js";

const [dir, file, chromaUrl] = process.argv.slice(2);
if (!dir || !file || !chromaUrl) {
  process.stderr.write("usage: import-process.ts <dir> <file> <chromaUrl>\n");
  process.exit(2);
}
const palace = await openPalace(dir, { create: true, chromaUrl });
let error: string | undefined;
try {
  await importPalace(palace, file);
} catch (caught) {
  error = errorMessage(caught);
}
await palace.close();
const maxRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(`${JSON.stringify({ error, maxRssMb })}\n`);
