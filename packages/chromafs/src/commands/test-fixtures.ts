import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type DocsSession, openDocsSession } from "../session/docs-session.js";
import { LocalFolderStore } from "../store/local-folder-store.js";

/**
 * A docs session over a few small pages with one fixed mtime (2026-09-21 14:13:20 UTC), for the
 * commands' unit tests. The expected outputs in those tests are GNU coreutils 9.1's under
 * LC_ALL=C.UTF-8 on the same files written to disk.
 */
export const COMMAND_TEST_FILES: Record<string, string> = {
  "n.md": "b 2\na 10\nc 1\nb 2\n",
  "r.md": "x\nx\nX\ny\n",
  "noeol.md": "one two\nthree",
  "empty.md": "",
  "u8.md": "é中 x\n",
  "d/kv.md": "k1: v: 3\nplain\n",
  "d/sub/h.md": "hello\n",
};
export const COMMAND_TEST_MTIME = new Date(1_790_000_000_000);

export interface CommandTestSession {
  run(command: string): Promise<{ stdout: string; stderr: string; exitCode: number }>;
  close(): Promise<void>;
}

export async function openCommandTestSession(): Promise<CommandTestSession> {
  const root = mkdtempSync(join(tmpdir(), "chromafs-commands-"));
  for (const [path, text] of Object.entries(COMMAND_TEST_FILES)) {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    utimesSync(file, COMMAND_TEST_MTIME, COMMAND_TEST_MTIME);
  }
  const session: DocsSession = await openDocsSession({ store: new LocalFolderStore(root) });
  return {
    async run(command) {
      const { stdout, stderr, exitCode } = await session.exec(command, { cwd: "/" });
      return { stdout, stderr, exitCode };
    },
    async close() {
      await session.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
