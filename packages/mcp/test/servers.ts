// How the tests start the real servers they talk to.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
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

let bundleDir: string | undefined;
const bundles = new Map<string, string>();

/**
 * A TypeScript fixture bundled (against sources) into one plain ESM file, built once per test
 * process: a child then starts in about 0.1 s instead of compiling through tsx for seconds.
 */
export function bundledFixture(name: string): string {
  const cached = bundles.get(name);
  if (cached) return cached;
  if (!bundleDir) {
    const dir = mkdtempSync(join(tmpdir(), "atrium-mcp-fixtures-"));
    bundleDir = dir;
  }
  const outfile = join(bundleDir, `${basename(name, ".ts")}.mjs`);
  buildSync({
    entryPoints: [fixture(name)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["@atrium/source"],
    logLevel: "error",
    // CommonJS dependencies (ajv) call require(); give the ESM bundle one.
    banner: {
      js: 'import { createRequire as __cr } from "node:module"; const require = __cr(import.meta.url);',
    },
  });
  bundles.set(name, outfile);
  return outfile;
}

/** Removes the bundles; call from afterAll in files that use them. */
export function removeBundles(): void {
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
  bundleDir = undefined;
  bundles.clear();
}

/** A fixture script as a stdio server; TypeScript ones run from their bundle. */
export function fixtureServer(name: string, env?: Record<string, string>): McpStdioServerConfig {
  const script = name.endsWith(".ts") ? bundledFixture(name) : fixture(name);
  return { command: process.execPath, args: [script], ...(env ? { env } : {}) };
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
