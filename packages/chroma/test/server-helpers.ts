import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export async function makeTempDir(prefix: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `pid` is gone; false if it is still alive after `timeoutMs`. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await sleep(50);
  }
  return !isAlive(pid);
}

/** Runs the fixture host in its own Node process and resolves with the server it started. */
export function spawnHost(dataDir: string, ...extraArgs: string[]) {
  const host = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--conditions=@atrium/source",
      join(import.meta.dirname, "fixtures", "host-with-server.ts"),
      dataDir,
      ...extraArgs,
    ],
    { stdio: ["ignore", "pipe", "pipe"], cwd: join(import.meta.dirname, "..") },
  );
  let stderr = "";
  host.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const server = new Promise<{ pid: number; url: string }>((resolve, reject) => {
    let stdout = "";
    host.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split("\n")[0];
      if (stdout.includes("\n") && line) resolve(JSON.parse(line));
    });
    host.once("exit", (code) => reject(new Error(`host exited with ${code}: ${stderr}`)));
  });
  return { host, server };
}

/** A loopback URL on which nothing listens (a port that was free a moment ago). */
export async function closedPortUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}
