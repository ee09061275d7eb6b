import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DocsSession, openDocsSession } from "../../src/session/docs-session.js";
import type { DocStore } from "../../src/store/doc-store.js";
import { type DiskCopy, writeDiskCopy } from "./disk-copy.js";
import { ORACLE_COMMANDS } from "./oracle-commands.js";

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

/** Runs `command` with GNU bash/grep/find/coreutils over the disk copy. */
export function runGnu(command: string, root: string): { stdout: string; exitCode: number } {
  const result = spawnSync("bash", ["-c", command], {
    cwd: root,
    env: { PATH: process.env.PATH, R: root, LC_ALL: "C.UTF-8", HOME: "/nonexistent" },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return { stdout: result.stdout.replaceAll(root, ""), exitCode: result.status ?? -1 };
}

/**
 * The oracle: every command through just-bash over the docs filesystem and through real bash
 * over the same pages on disk; stdout and exit code must be identical. Parameterised by store.
 */
export function describeOracle(name: string, openStore: () => Promise<OracleStore>): void {
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

    it("has at least 60 commands", () => {
      expect(ORACLE_COMMANDS.length).toBeGreaterThanOrEqual(60);
    });

    it.each(ORACLE_COMMANDS)("$command", async ({ command, unordered }) => {
      const ours = await session.exec(`R=; ${command}`, { cwd: "/" });
      const gnu = runGnu(command, disk.root);
      expect({ stdout: canonical(ours.stdout, unordered), exitCode: ours.exitCode }).toEqual({
        stdout: canonical(gnu.stdout, unordered),
        exitCode: gnu.exitCode,
      });
    });
  });
}
