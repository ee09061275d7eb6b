// Several `atrium-palace mcp --http` servers on one palace: its records in one PostgreSQL
// database, its vectors in one Chroma server, each server with a palace directory of its own
// (the second `atrium-palace init` of a database adopts the first one's settings). Every part is
// a real process, started from sources through tsx or from the installed bin (test-target.ts),
// and stopped by its PID; the clients are the official MCP SDK's, as any MCP host has them.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { cliArgs } from "../test-target.ts";

export const PALACE_PACKAGE_DIR = fileURLToPath(new URL("../../packages/palace", import.meta.url));

/** Where a palace's parts are, as `atrium-palace` reads them from its environment. */
export interface PalaceStores {
  /** ATRIUM_PALACE_POSTGRES */
  postgresUrl: string;
  /** ATRIUM_CHROMA_URL */
  chromaUrl: string;
}

function palaceEnv(stores: PalaceStores): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ATRIUM_PALACE_POSTGRES: stores.postgresUrl,
    ATRIUM_CHROMA_URL: stores.chromaUrl,
    // The palace is the one --palace or the argument names, never the environment's.
    ATRIUM_PALACE: "",
  };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `atrium-palace <args>` to its end (SIGKILL after `timeoutMs`). */
export function runPalaceCli(
  args: readonly string[],
  stores: PalaceStores,
  timeoutMs: number,
): Promise<CliRun> {
  const child = spawn(process.execPath, [...cliArgs(PALACE_PACKAGE_DIR), ...args], {
    cwd: PALACE_PACKAGE_DIR,
    env: palaceEnv(stores),
    stdio: ["ignore", "pipe", "pipe"],
    timeout: timeoutMs,
    killSignal: "SIGKILL",
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** `atrium-palace mcp --http …` running as a real child process. */
export interface PalaceMcp {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The URL the server printed on stdout. */
  readonly url: string;
  /** Resolves once the process ended: its exit code, or the signal that ended it. */
  readonly exited: Promise<number | NodeJS.Signals | null>;
  /** Everything it printed on stderr so far. */
  stderr(): string;
}

/**
 * Starts `atrium-palace mcp --http --no-auth --admin --port 0 --palace <dir>` on `stores` and
 * resolves once it printed its URL; rejects if it exits first or prints nothing within `timeoutMs`.
 */
export async function startPalaceMcp(
  dir: string,
  stores: PalaceStores,
  timeoutMs: number,
): Promise<PalaceMcp> {
  const child = spawn(
    process.execPath,
    [
      ...cliArgs(PALACE_PACKAGE_DIR),
      ...["mcp", "--http", "--no-auth", "--admin", "--port", "0", "--palace", dir],
    ],
    { cwd: PALACE_PACKAGE_DIR, env: palaceEnv(stores), stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal)),
  );
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        const end = out.indexOf("\n");
        if (end >= 0) resolve(out.slice(0, end));
      });
      child.once("exit", (code, signal) =>
        reject(new Error(`atrium-palace mcp exited with ${code ?? signal}: ${stderr}`)),
      );
      setTimeout(
        () => reject(new Error(`atrium-palace mcp printed no URL within ${timeoutMs} ms: ${stderr}`)),
        timeoutMs,
      ).unref();
    });
    return { child, pid: child.pid as number, url, exited, stderr: () => stderr };
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    throw error;
  }
}

/**
 * Ends the server with SIGTERM (it lets calls in flight finish, up to 10 s) and waits for it to
 * exit; SIGKILL once `graceMs` has passed. Resolves with how it ended. Nothing when it has ended.
 */
export async function stopPalaceMcp(
  server: PalaceMcp | undefined,
  graceMs = 15_000,
): Promise<number | NodeJS.Signals | null | undefined> {
  if (!server) return undefined;
  if (server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill("SIGTERM");
    const ended = await Promise.race([server.exited.then(() => true), sleep(graceMs, false, { ref: false })]);
    if (!ended) server.child.kill("SIGKILL");
  }
  return server.exited;
}

/** One tool call's answer, as the server sent it. */
export interface ToolAnswer {
  isError: boolean;
  /** The text parts, joined. */
  text: string;
  structured: unknown;
}

/** One MCP session with one palace server, on the official SDK's client. */
export interface PalaceSession {
  readonly url: string;
  /** One tool call; throws the SDK's error on an HTTP or MCP failure or after `timeoutMs`. */
  call(name: string, args: Record<string, unknown>, timeoutMs: number): Promise<ToolAnswer>;
  /** Ends the session (bounded), then the client; never throws. */
  close(): Promise<void>;
}

const SESSION_END_MS = 2_000;

export async function connectPalace(url: string, timeoutMs: number): Promise<PalaceSession> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: "palace-servers-test", version: "1.0.0" }, { capabilities: {} });
  // The SDK reports a broken stream here; the call it carried fails by its own timeout.
  client.onerror = () => {};
  await client.connect(transport, { timeout: timeoutMs });
  return {
    url,
    async call(name, args, callTimeoutMs) {
      const result = (await client.callTool({ name, arguments: args }, undefined, {
        timeout: callTimeoutMs,
      })) as CallToolResult;
      const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
      return { isError: result.isError === true, text, structured: result.structuredContent };
    },
    async close() {
      const ended = transport.terminateSession().catch(() => {});
      await Promise.race([ended, sleep(SESSION_END_MS, undefined, { ref: false })]);
      await client.close().catch(() => {});
    },
  };
}

/**
 * The processes whose command line mentions `fragment` (a suite's temporary directory): what a
 * suite left running. Read from /proc; zombies (exited, not yet reaped) do not count.
 */
export function processesMentioning(fragment: string): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const command = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ").trim();
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
      if (command.includes(fragment) && state !== "Z") found.push({ pid: Number(name), command });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

export { isAlive } from "../process-alive.ts";
