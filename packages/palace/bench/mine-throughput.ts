import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchRow, compared } from "@atrium/bench";
import { mine } from "../src/mining/mine.js";
import { openPalace } from "../src/open-palace.js";
import type { LocomoConversation } from "./locomo/locomo-format.js";
import { exportTurns, locomoAsClaudeAiExport } from "./locomo-export.js";

/**
 * `mine.turns_per_s`: LoCoMo's dialogues as a Claude.ai export, mined with `mine()` (one drawer
 * per turn, the offline hashing embedding) into a fresh palace, its Chroma server already
 * running; beside it the same turns filed straight through `palace.file`, one batch per
 * conversation — what mining costs over the palace's own write path.
 */
export async function mineThroughputRows(
  conversations: readonly LocomoConversation[],
  log: (line: string) => void,
): Promise<BenchRow[]> {
  const work = await mkdtemp(join(tmpdir(), "atrium-palace-mine-bench-"));
  try {
    const exported = locomoAsClaudeAiExport(conversations);
    const file = join(work, "conversations.json");
    await writeFile(file, JSON.stringify(exported));

    const mined = await openPalace(join(work, "mined"), { create: true });
    let minedPerSecond: number;
    try {
      const start = performance.now();
      const result = await mine(mined, file, { mode: "convos", wing: "locomo", chunking: "turn" });
      const seconds = (performance.now() - start) / 1000;
      const turns = exportTurns(exported);
      if (result.added !== turns || result.errors.length > 0) {
        throw new Error(
          `mining the LoCoMo export filed ${result.added} drawers for ${turns} turns (${result.errors.length} errors); the benchmark counts one drawer per turn`,
        );
      }
      minedPerSecond = result.added / seconds;
      log(`mined ${result.added} turns from ${result.sources} conversations in ${seconds.toFixed(1)} s`);
    } finally {
      await mined.close();
    }

    const filed = await openPalace(join(work, "filed"), { create: true });
    let filedPerSecond: number;
    try {
      const start = performance.now();
      let count = 0;
      for (const conversation of conversations) count += (await filed.file(conversation.drafts)).length;
      filedPerSecond = count / ((performance.now() - start) / 1000);
    } finally {
      await filed.close();
    }
    return [compared("mine.turns_per_s", minedPerSecond, "turns/s", "palace.file", filedPerSecond)];
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
