import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { cliArgs } from "../test-target.ts";

const CHROMAFS_DIR = fileURLToPath(new URL("../../packages/chromafs", import.meta.url));

/** `atrium-docs mcp --http …` running as a real child process: sources through tsx, or the installed bin (test-target.ts). */
export interface AtriumDocsMcp {
  readonly child: ChildProcess;
  /** The URL the server printed on stdout. */
  readonly url: string;
  /** Resolves with the exit code once the process ended. */
  readonly exited: Promise<number | null>;
  /** Everything it printed on stderr so far. */
  stderr(): string;
}

/** Starts `atrium-docs mcp <args>` and resolves once it printed its URL; rejects if it exits first. */
export async function startAtriumDocsMcp(args: readonly string[]): Promise<AtriumDocsMcp> {
  const child = spawn(process.execPath, [...cliArgs(CHROMAFS_DIR), "mcp", ...args], {
    cwd: CHROMAFS_DIR,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("\n")) resolve(out.trim());
    });
    child.once("exit", (code) => reject(new Error(`atrium-docs mcp exited with ${code}: ${stderr}`)));
  });
  return { child, url, exited, stderr: () => stderr };
}

/** Ends the server with `signal` (if it still runs) and waits for it to exit. */
export async function stopAtriumDocsMcp(
  server: AtriumDocsMcp | undefined,
  signal: NodeJS.Signals,
): Promise<void> {
  if (!server || server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill(signal);
  await server.exited;
}
