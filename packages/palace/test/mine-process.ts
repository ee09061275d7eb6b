/**
 * A test helper run as its own process (never imported): mines `path` into the palace in `dir`
 * with `mine`, printing "filed <n>" after each source it files so a test can `kill -9` it mid-run,
 * then "done".
 *
 *   node --conditions=@atrium/source --import tsx mine-process.ts <dir> <path> <wing> <chromaUrl>
 */

import { mine } from "../src/mining/mine.js";
import { openPalace } from "../src/open-palace.js";

const [dir, path, wing, chromaUrl] = process.argv.slice(2);
if (!dir || !path || !wing || !chromaUrl) {
  process.stderr.write("usage: mine-process.ts <dir> <path> <wing> <chromaUrl>\n");
  process.exit(2);
}
const palace = await openPalace(dir, { create: true, chromaUrl });
let filed = 0;
await mine(palace, path, {
  mode: "convos",
  wing,
  chunking: "turn",
  onProgress: (event) => {
    if (event.type === "source" && event.status !== "unchanged") process.stdout.write(`filed ${++filed}\n`);
  },
});
await palace.close();
process.stdout.write("done\n");
