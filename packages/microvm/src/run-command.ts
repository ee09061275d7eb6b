import { spawn } from "node:child_process";

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a host tool to completion (no shell), with its output as text. Never rejects for a non-zero exit. */
export function runCommand(
  file: string,
  args: readonly string[],
  options: { input?: Uint8Array; timeoutMs?: number; stdoutFile?: number } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      stdio: [options.input ? "pipe" : "ignore", options.stdoutFile ?? "pipe", "pipe"],
      timeout: options.timeoutMs,
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    // A tool may exit before reading all its input; the write then fails with EPIPE, which an
    // unhandled 'error' event would turn into a crash. The exit code reports how the tool did.
    child.stdin?.on("error", () => {});
    if (options.input) child.stdin?.end(options.input);
  });
}

/** The absolute path of `name` on PATH, or undefined. */
export async function which(name: string): Promise<string | undefined> {
  const { access, constants } = await import("node:fs/promises");
  const { delimiter, join } = await import("node:path");
  const dirs = (process.env.PATH ?? "").split(delimiter).concat(["/usr/sbin", "/sbin", "/usr/bin"]);
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
