import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage } from "@atrium/spec";
import { isChromaAlive } from "../heartbeat.js";
import type { ChromaLimits } from "../limits.js";
import type { ChildExit, ServerChild } from "./server-child.js";
import { PortTakenError } from "./server-child.js";
import {
  isProcessAlive,
  readServerInfo,
  removeServerInfo,
  SERVER_LOG_FILE,
  type ServerInfo,
  withStartLock,
  writeServerInfo,
} from "./server-info-file.js";

/** `up`: answering. `restarting`: it exited and a restart is pending or under way. `down`: given up on (or, for a reuser, not found). */
export type ChromaServerState = "up" | "restarting" | "down";

export interface ChromaServerHealth {
  state: ChromaServerState;
  url: string;
  pid: number;
  /** Restarts that succeeded since the server was started. */
  restarts: number;
  /** What last went wrong (an exit, a failed restart), if anything has. */
  lastError?: string;
  /** When `state` last changed (ISO 8601). */
  since: string;
}

/** A change of a supervised server, with a line fit for a log. */
export interface ChromaServerEvent {
  type: "exited" | "restarted" | "down";
  message: string;
  health: ChromaServerHealth;
}

type Limits = Pick<
  ChromaLimits,
  "maxServerRestarts" | "serverRestartWindowMs" | "minRestartBackoffMs" | "maxRestartBackoffMs"
>;

/**
 * Keeps the server a process started running: when the child exits without `stop()`, it is
 * started again after a back-off that doubles with each quick failure, on the same port (so
 * URLs held by clients stay valid) or, if that port was taken meanwhile, on a free one, and
 * the data dir's record (`atrium-chroma.json`) is rewritten so every process sharing the server
 * finds it. More than `maxServerRestarts` failures within `serverRestartWindowMs` and
 * it gives up: state `down`, with an error saying so.
 *
 * Restarts take the data dir's start lock, and a live server another process started there in
 * the meantime is used instead of starting a second one on the same files.
 */
export class ServerSupervisor {
  private child: ServerChild | undefined;
  private current: { url: string; port: number; pid: number };
  private state: ChromaServerState = "up";
  private restarts = 0;
  private lastError: string | undefined;
  private since = new Date().toISOString();
  private readonly failures: number[] = [];
  private readonly listeners = new Set<(event: ChromaServerEvent) => void>();
  private timer: NodeJS.Timeout | undefined;
  private restarting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly dataDir: string,
    first: ServerChild,
    private readonly limits: Limits,
    /** Starts a child on `port`, or on a free port when undefined. */
    private readonly launch: (port: number | undefined) => Promise<ServerChild>,
    /** False: an exit is reported (state `down`), not repaired. */
    private readonly restartOnExit = true,
  ) {
    this.child = first;
    this.current = { url: first.url, port: first.port, pid: first.pid };
    this.watch(first);
  }

  get url(): string {
    return this.current.url;
  }

  get port(): number {
    return this.current.port;
  }

  get pid(): number {
    return this.current.pid;
  }

  health(): ChromaServerHealth {
    return {
      state: this.state,
      url: this.current.url,
      pid: this.current.pid,
      restarts: this.restarts,
      ...(this.lastError !== undefined && { lastError: this.lastError }),
      since: this.since,
    };
  }

  onEvent(listener: (event: ChromaServerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends supervision and the server (if this process still runs it). Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      clearTimeout(this.timer);
      await this.restarting;
      const child = this.child;
      if (child) {
        await child.terminate();
        await removeServerInfo(this.dataDir, child.pid);
      }
    })();
    return this.stopping;
  }

  private watch(child: ServerChild): void {
    void child.exited.then((exit) => {
      if (this.stopping || this.child !== child) return;
      const reason = `the server (pid ${child.pid}) ${describeExit(exit)}`;
      if (this.restartOnExit) return this.failed(reason);
      this.lastError = `${reason}; it is not supervised (supervise: false)`;
      this.setState("down");
      this.emit("down", `Chroma server for ${this.dataDir}: ${this.lastError}`);
    });
  }

  private failed(reason: string): void {
    const now = Date.now();
    this.failures.push(now);
    while ((this.failures[0] as number) < now - this.limits.serverRestartWindowMs) this.failures.shift();
    const quick = this.failures.length;
    if (quick > this.limits.maxServerRestarts) {
      this.lastError =
        `the Chroma server for ${this.dataDir} failed ${quick} times within ${this.limits.serverRestartWindowMs} ms ` +
        `(last: ${reason}), so it is not restarted again; see ${join(this.dataDir, SERVER_LOG_FILE)}, fix the cause and restart this process`;
      this.setState("down");
      this.emit("down", this.lastError);
      return;
    }
    const delay = Math.min(
      this.limits.maxRestartBackoffMs,
      this.limits.minRestartBackoffMs * 2 ** (quick - 1),
    );
    this.lastError = reason;
    this.setState("restarting");
    this.emit("exited", `Chroma server for ${this.dataDir}: ${reason}; restarting it in ${delay} ms`);
    this.timer = setTimeout(() => {
      this.restarting = this.restart().finally(() => {
        this.restarting = undefined;
      });
    }, delay);
    // A pending restart must not keep a host that is otherwise done from exiting.
    this.timer.unref();
  }

  private async restart(): Promise<void> {
    const previous = this.current;
    try {
      const next = await withStartLock(this.dataDir, async () => {
        const running = await readServerInfo(this.dataDir);
        if (running && running.pid !== previous.pid && (await answers(running))) return running;
        let child: ServerChild;
        try {
          child = await this.launch(previous.port);
        } catch (error) {
          if (!(error instanceof PortTakenError)) throw error;
          child = await this.launch(undefined);
        }
        await writeServerInfo(this.dataDir, {
          pid: child.pid,
          host: new URL(child.url).hostname.replace(/^\[|\]$/g, ""),
          port: child.port,
          url: child.url,
          ownerPid: process.pid,
          startedAt: new Date().toISOString(),
        });
        return child;
      });
      if (this.stopping) {
        if ("terminate" in next) await next.terminate();
        return;
      }
      this.current = { url: next.url, port: next.port, pid: next.pid };
      this.restarts++;
      this.setState("up");
      if ("terminate" in next) {
        this.child = next;
        this.watch(next);
        const moved = next.url === previous.url ? "" : ` (moved from ${previous.url}: its port was taken)`;
        this.emit(
          "restarted",
          `Chroma server for ${this.dataDir} restarted on ${next.url}${moved}, pid ${next.pid}`,
        );
      } else {
        // Another process started a server on the dir meanwhile: use it, it is theirs to stop.
        this.child = undefined;
        this.emit(
          "restarted",
          `Chroma server for ${this.dataDir} was started again by process ${next.ownerPid}: using it at ${next.url}`,
        );
      }
    } catch (error) {
      if (!this.stopping) this.failed(`restarting it failed: ${errorMessage(error)}`);
    }
  }

  private setState(state: ChromaServerState): void {
    this.state = state;
    this.since = new Date().toISOString();
  }

  private emit(type: ChromaServerEvent["type"], message: string): void {
    // The data dir's log tells the server's whole story, restarts included.
    void appendFile(
      join(this.dataDir, SERVER_LOG_FILE),
      `--- ${new Date().toISOString()} ${message}\n`,
    ).catch(() => {});
    const event = { type, message, health: this.health() };
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's bug must not stop the supervision it listens to.
      }
    }
  }
}

async function answers(info: ServerInfo): Promise<boolean> {
  return isProcessAlive(info.pid) && (await isChromaAlive(info.url));
}

function describeExit(exit: ChildExit): string {
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}
