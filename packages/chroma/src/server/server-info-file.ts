import { mkdir, open, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { DEFAULT_CHROMA_LIMITS } from "../limits.js";

/**
 * What a data dir's running server left behind for the next starter: `atrium-chroma.json` names
 * the server process and its URL so a second process reuses it instead of opening the same
 * SQLite + index files twice (which corrupts them). `atrium-chroma.lock` serialises starters.
 */
export interface ServerInfo {
  pid: number;
  host: string;
  port: number;
  url: string;
  /** The process that started (and will stop) the server. */
  ownerPid: number;
  startedAt: string;
}

export const SERVER_INFO_FILE = "atrium-chroma.json";
export const SERVER_LOCK_FILE = "atrium-chroma.lock";
export const SERVER_LOG_FILE = "chroma-server.log";

export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether `pid` is a server started on `dataDir` (its command line names the dir). After a
 * reboot a recorded PID may belong to an unrelated process; that record is stale, not a hung
 * server. Where /proc is missing (not Linux), a live PID is taken at its word.
 */
export async function runsOnDataDir(pid: number, dataDir: string): Promise<boolean> {
  let cmdline: string;
  try {
    cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return isProcessAlive(pid);
  }
  const args = cmdline.split("\0");
  return args.some((arg, index) => arg === "--path" && args[index + 1] === dataDir);
}

export async function readServerInfo(dataDir: string): Promise<ServerInfo | undefined> {
  try {
    const parsed = JSON.parse(await readFile(join(dataDir, SERVER_INFO_FILE), "utf8")) as Partial<ServerInfo>;
    if (typeof parsed.pid !== "number" || typeof parsed.url !== "string" || typeof parsed.port !== "number") {
      return undefined;
    }
    return parsed as ServerInfo;
  } catch {
    return undefined;
  }
}

export async function writeServerInfo(dataDir: string, info: ServerInfo): Promise<void> {
  await writeFile(join(dataDir, SERVER_INFO_FILE), `${JSON.stringify(info, null, 2)}\n`);
}

/** Removes the info file if it still describes the server `pid` (a newer one may have replaced it). */
export async function removeServerInfo(dataDir: string, pid: number): Promise<void> {
  const info = await readServerInfo(dataDir);
  if (info?.pid === pid) await rm(join(dataDir, SERVER_INFO_FILE), { force: true });
}

/**
 * Holds the data dir's start lock while `body` runs. A lock left by a dead process is taken
 * over; a live holder is waited for (it is starting the server we will then reuse).
 */
export async function withStartLock<T>(dataDir: string, body: () => Promise<T>): Promise<T> {
  await mkdir(dataDir, { recursive: true });
  const lockPath = join(dataDir, SERVER_LOCK_FILE);
  const deadline = Date.now() + DEFAULT_CHROMA_LIMITS.startLockWaitMs;
  for (;;) {
    try {
      const handle = await open(lockPath, "wx");
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number((await readFile(lockPath, "utf8").catch(() => "")).trim());
      if (holder && !isProcessAlive(holder)) {
        await rm(lockPath, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `process ${holder || "?"} has held ${lockPath} for over ${DEFAULT_CHROMA_LIMITS.startLockWaitMs} ms; if no server is starting, delete that file`,
        );
      }
      await sleep(50);
    }
  }
  try {
    return await body();
  } finally {
    await rm(lockPath, { force: true });
  }
}
