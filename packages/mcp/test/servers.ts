// How the tests start the real servers they talk to.
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { McpStdioServerConfig } from "../src/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

export const fixture = (name: string) => join(here, "fixtures", name);

/** server-everything's entry point, run with this Node (no npx, no network). */
export const everythingEntry = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);

export const everythingStdio: McpStdioServerConfig = {
  command: process.execPath,
  args: [everythingEntry, "stdio"],
};

/** A fixture script as a stdio server; TypeScript ones run through tsx against sources. */
export function fixtureServer(name: string, env?: Record<string, string>): McpStdioServerConfig {
  const args = name.endsWith(".ts")
    ? ["--conditions=source", "--import", "tsx", fixture(name)]
    : [fixture(name)];
  return { command: process.execPath, args, ...(env ? { env } : {}) };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
}

/** Polls until the process is gone (exit is asynchronous after a kill); false on timeout. */
export async function waitForExit(pid: number, ms = 3_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return !isAlive(pid);
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RunningServer {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** server-everything's streamable HTTP (or SSE) transport on a free loopback port. */
export async function startEverythingHttp(
  transport: "streamableHttp" | "sse" = "streamableHttp",
): Promise<RunningServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [everythingEntry, transport], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let said = "";
    const timer = setTimeout(
      () => reject(new Error(`server-everything ${transport} did not start: ${said}`)),
      15_000,
    );
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      said += chunk;
      if (/listening on port|running on port/i.test(said)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`server-everything exited with ${code}: ${said}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/${transport === "sse" ? "sse" : "mcp"}`,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    },
  };
}
