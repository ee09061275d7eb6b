import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DocStore } from "../../src/doc-store/doc-store.js";
import { type DocsSession, openDocsSession } from "../../src/session/docs-session.js";
import { type DiskCopy, writeDiskCopy } from "./disk-copy.js";
import type { OracleCommand } from "./oracle-commands.js";
import { runGnu } from "./run-gnu.js";

export interface OracleStore {
  store: DocStore;
  close(): Promise<void>;
}

function canonical(text: string, unordered: boolean | undefined): string {
  if (!unordered) return text;
  return text
    .split("\n")
    .filter((line) => line !== "")
    .sort()
    .join("\n");
}

/**
 * The oracle: every command through just-bash over the docs filesystem and through real bash
 * over the same pages on disk; stdout and exit code must be identical. Parameterised by store
 * and by the command list of its corpus.
 */
export function describeOracle(
  name: string,
  openStore: () => Promise<OracleStore>,
  commands: readonly OracleCommand[],
): void {
  describe(`oracle: ${name}`, () => {
    let opened: OracleStore;
    let disk: DiskCopy;
    let session: DocsSession;

    beforeAll(async () => {
      opened = await openStore();
      disk = await writeDiskCopy(opened.store);
      session = await openDocsSession({ store: opened.store });
    }, 180_000);

    afterAll(async () => {
      // Each step runs whatever the one before did, and whatever set-up got to.
      try {
        await session?.close();
      } finally {
        try {
          disk?.remove();
        } finally {
          await opened?.close();
        }
      }
    });

    it.each(commands)("$command", async ({ command, unordered }) => {
      const ours = await session.exec(`R=; ${command}`, { cwd: "/" });
      const gnu = runGnu(command, disk.root);
      expect({ stdout: canonical(ours.stdout, unordered), exitCode: ours.exitCode }).toEqual({
        stdout: canonical(gnu.stdout, unordered),
        exitCode: gnu.exitCode,
      });
    });
  });
}
