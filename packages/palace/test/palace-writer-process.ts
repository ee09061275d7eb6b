/**
 * A test helper run as its own process (never imported): files `total` synthetic turns into
 * the palace in `dir`, `batch` at a time, printing "filed <n>" after each batch so a test can
 * `kill -9` it mid-run, then "done". `mode` "file" uses `Palace.file`; "mine" replaces one
 * source of 50 turns at a time, as a mining run does. Drafts with the same index are the same in
 * every run, so a re-run after a kill must end with exactly `total` drawers.
 *
 *   node --conditions=@atrium/source --import tsx palace-writer-process.ts <dir> <wing> <total> <batch> <file|mine> [chromaUrl]
 */
import type { DrawerDraft } from "../src/drawers/drawer.js";
import { openPalace } from "../src/open-palace.js";

const [dir, wing, totalText, batchText, mode, chromaUrl] = process.argv.slice(2);
if (!dir || !wing || !totalText || !batchText || (mode !== "file" && mode !== "mine")) {
  process.stderr.write(
    "usage: palace-writer-process.ts <dir> <wing> <total> <batch> <file|mine> [chromaUrl]\n",
  );
  process.exit(2);
}
const wingName: string = wing;
const total = Number(totalText);
const batch = Number(batchText);
const SOURCE_SIZE = 50;
const TOPICS = ["garden", "marathon", "painting", "adoption", "camping", "violin", "pottery", "hiking"];

function draft(index: number): DrawerDraft {
  const topic = TOPICS[index % TOPICS.length] as string;
  return {
    content: `Turn ${index} of ${wingName}: we talked about ${topic} and the plans for week ${index % 52}.`,
    wing: wingName,
    room: topic,
    hall: "conversations",
    source: `${wingName}-conversation-${Math.floor(index / SOURCE_SIZE)}`,
    position: index % SOURCE_SIZE,
    speaker: index % 2 === 0 ? "Caroline" : "Melanie",
    turnId: `${wingName}:${index}`,
    timestamp: new Date(Date.UTC(2024, 0, 1) + index * 60_000).toISOString(),
  };
}

const palace = await openPalace(dir, { create: true, ...(chromaUrl ? { chromaUrl } : {}) });
if (mode === "file") {
  for (let start = 0; start < total; start += batch) {
    const end = Math.min(total, start + batch);
    await palace.file(Array.from({ length: end - start }, (_, offset) => draft(start + offset)));
    process.stdout.write(`filed ${end}\n`);
  }
} else {
  for (let start = 0; start < total; start += SOURCE_SIZE) {
    const end = Math.min(total, start + SOURCE_SIZE);
    const drafts = Array.from({ length: end - start }, (_, offset) => draft(start + offset));
    await palace.replaceSource(drafts[0]?.source as string, `hash-${end - start}`, drafts);
    process.stdout.write(`filed ${end}\n`);
  }
}
await palace.close();
process.stdout.write("done\n");
