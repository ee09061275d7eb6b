// How the CLI tests start `atrium-agent`: from sources, or the installed tarball's bin in the
// built pass (tests/test-target.ts), with a scripted model's replies in a file.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll } from "vitest";
import { cliArgs } from "../../../../tests/test-target.ts";

export const packageDir = join(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Each test starts the CLI from TypeScript sources (node, tsx's loader, a sandbox worker): about
 * 3 s on an idle machine, over 15 s on 2 loaded cores. The budget is generous; the child is
 * killed well before the test times out, so a hung CLI fails with its output, not a bare timeout.
 */
export const CLI_KILL_MS = 100_000;
export const CLI_TEST_TIMEOUT_MS = 120_000;

/** A folder of this test file's own, removed after it. */
export const dir = mkdtempSync(join(tmpdir(), "atrium-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Colour variables of the test runner must not leak into the child: it is not a TTY either.
const { NO_COLOR: _noColor, FORCE_COLOR: _forceColor, ...inherited } = process.env;
export const plainEnv: NodeJS.ProcessEnv = inherited;

/** The trace with its timings and token counts (which vary) replaced by placeholders. */
export function normalise(trace: string): string {
  return trace.replace(/\d+\.\d\d s/g, "T s").replace(/\d+ in \/ \d+ out tokens/g, "N in / N out tokens");
}

/** `word` as one POSIX shell word, whatever it holds. */
export const shellWord = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

let files = 0;
/** A `scripted:<file>` model's replies, written to a file of their own. */
export function script(replies: unknown[]): string {
  const path = join(dir, `replies-${++files}.json`);
  writeFileSync(path, JSON.stringify(replies));
  return path;
}

export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `atrium-agent <args>` with no terminal: stdin closed, stdout and stderr captured apart. */
export function cli(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliArgs(packageDir), ...args], {
      cwd: packageDir,
      env: { ...plainEnv, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${CLI_KILL_MS} ms]`;
      child.kill("SIGKILL");
    }, CLI_KILL_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
