import type { Worker } from "node:worker_threads";
import { ClosedError, ConfigError, errorMessage, LimitError } from "@atrium/spec";
import type { Access, DocStore } from "../doc-store/doc-store.js";
import { SessionWorkerLostError, WorkerThreadError } from "../errors.js";
import { type ChromafsLimits, resolveChromafsLimits } from "../limits.js";
import type { CommandResult } from "../session/docs-session.js";
import type { DocsShell } from "../session/docs-shell.js";
import type { FollowedServer } from "../store/chroma/chroma-doc-store.js";
import { storeRecipeOf } from "../store/store-recipe.js";
import { WORKER_TIME_SLICE_MS } from "../tuning.js";
import type { HostMessage, WorkerMessage, WorkerStart } from "./pool-protocol.js";
import { storeUnavailableFrom } from "./reported-outage.js";
import { RoundRobin } from "./round-robin.js";
import { startWorkerThread } from "./start-worker-thread.js";
export type SessionPoolLimits = Pick<
  ChromafsLimits,
  "poolWorkers" | "maxConcurrentCommandsPerWorker" | "maxQueuedCommandsPerSession" | "maxSharedPageCacheBytes"
>;

export interface SessionWorkerPoolOptions {
  /** A `ChromaDocStore` opened on a URL, or a `LocalFolderStore`: each worker opens its own client. */
  store: DocStore;
  limits?: Partial<SessionPoolLimits>;
}

/** What just-bash answers for a command aborted before it ran; a queued command dropped answers the same. */
const ABORTED: Readonly<CommandResult> = Object.freeze({
  stdout: "",
  stderr: "bash: execution aborted\n",
  exitCode: 124,
});

interface Pending {
  id: number;
  state: SessionState;
  command: string;
  cwd: string | undefined;
  resolve(result: CommandResult): void;
  reject(error: unknown): void;
  /** Detaches the abort listener. */
  done(): void;
}

interface SessionState {
  id: number;
  groups: readonly string[];
  cwd: string;
  slot: WorkerSlot;
  /** Whether the slot's current thread has this session open (false after a replacement). */
  openOnThread: boolean;
  queue: Pending[];
  running: Pending | undefined;
  closed: boolean;
}

/**
 * Docs sessions whose commands run on worker threads, so one session's CPU-heavy command never
 * stalls the process that serves the others. Each session is pinned to one worker (the one with
 * the fewest sessions when it opened) for its whole life, so its /tmp, working directory and the
 * worker's page cache stay whole. A session's commands run one at a time, in order, at most
 * `maxQueuedCommandsPerSession` waiting; a worker runs up to `maxConcurrentCommandsPerWorker`
 * commands interleaved and picks the next one round-robin across its sessions, so a session with
 * 400 commands waiting gets one turn per round like a session with one. A worker that dies fails
 * only its sessions' commands (`SessionWorkerLostError`) and is replaced.
 */
export class SessionWorkerPool {
  readonly limits: Readonly<SessionPoolLimits>;
  private readonly slots: WorkerSlot[];
  private nextSession = 0;
  private closed = false;

  private constructor(slots: WorkerSlot[], limits: Readonly<SessionPoolLimits>) {
    this.slots = slots;
    this.limits = limits;
  }

  /** Starts every worker (each opens the store and reads its tree) and resolves once all are ready. */
  static async start(options: SessionWorkerPoolOptions): Promise<SessionWorkerPool> {
    const reopenable = storeRecipeOf(options.store);
    if (!reopenable) {
      throw new ConfigError(
        `SessionWorkerPool: ${options.store.description} can't be opened again in a worker thread; pass a ChromaDocStore opened on a URL or a LocalFolderStore, or run sessions in process (openDocsSession)`,
      );
    }
    const resolved = resolveChromafsLimits(options.limits);
    const limits: Readonly<SessionPoolLimits> = Object.freeze({
      poolWorkers: resolved.poolWorkers,
      maxConcurrentCommandsPerWorker: resolved.maxConcurrentCommandsPerWorker,
      maxQueuedCommandsPerSession: resolved.maxQueuedCommandsPerSession,
      maxSharedPageCacheBytes: resolved.maxSharedPageCacheBytes,
    });
    const { recipe } = reopenable;
    const start: WorkerStart = {
      // Each worker holds its own store: the chunk cache is shared out like the page cache.
      recipe:
        recipe.kind === "chroma"
          ? {
              ...recipe,
              maxChunkCacheBytes: Math.max(1, Math.floor(recipe.maxChunkCacheBytes / limits.poolWorkers)),
            }
          : recipe,
      // The documented bound holds for the whole pool: each worker keeps its share.
      pageCacheBytes: Math.max(1, Math.floor(limits.maxSharedPageCacheBytes / limits.poolWorkers)),
      timeSliceMs: WORKER_TIME_SLICE_MS,
    };
    const slots = Array.from(
      { length: limits.poolWorkers },
      (_, index) => new WorkerSlot(index, start, reopenable.server, limits),
    );
    const started = await Promise.allSettled(slots.map((slot) => slot.ready()));
    const failed = started.find((outcome) => outcome.status === "rejected");
    if (failed) {
      await Promise.all(slots.map((slot) => slot.close()));
      throw failed.reason;
    }
    return new SessionWorkerPool(slots, limits);
  }

  /** Workers in the pool. */
  get size(): number {
    return this.slots.length;
  }

  /** Sessions open on each worker, by worker index. */
  sessionsPerWorker(): number[] {
    return this.slots.map((slot) => slot.sessions.size);
  }

  /**
   * Opens a docs session seeing what `groups` allow, on the worker with the fewest sessions.
   * Access is decided in the worker exactly as `openDocsSession` decides it in process.
   */
  async openSession(options: { groups?: readonly string[]; cwd?: string } = {}): Promise<DocsShell> {
    if (this.closed) throw new ClosedError("session worker pool");
    const slot = this.slots.reduce((best, next) => (next.sessions.size < best.sessions.size ? next : best));
    const state: SessionState = {
      id: this.nextSession++,
      groups: [...(options.groups ?? [])],
      cwd: options.cwd ?? "/",
      slot,
      openOnThread: false,
      queue: [],
      running: undefined,
      closed: false,
    };
    await slot.open(state);
    const access: Access = { groups: state.groups };
    return {
      access,
      get cwd() {
        return state.cwd;
      },
      exec: (command, execOptions = {}) => slot.exec(state, command, execOptions),
      close: async () => slot.closeSession(state),
      [Symbol.asyncDispose]: async () => slot.closeSession(state),
    };
  }

  /**
   * Stops worker `index` now and starts a new one in its place, as if it had crashed: the
   * commands its sessions had running or waiting fail with `SessionWorkerLostError` naming
   * `reason`, and their next commands run on the new worker. For an operator whose worker is
   * stuck in a command that does not yield to its cancellation (a long pure-CPU pipeline).
   */
  async replaceWorker(index: number, reason: string): Promise<void> {
    const slot = this.slots[index];
    if (!slot)
      throw new ConfigError(`SessionWorkerPool has workers 0 to ${this.slots.length - 1}, not ${index}`);
    await slot.replace(reason);
  }

  /** Stops every worker; commands waiting or running fail with ClosedError. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((slot) => slot.close()));
  }

  /** `await using pool = await SessionWorkerPool.create(...)` stops it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** One place in the pool: a worker thread (replaced when it dies), its sessions and their turns. */
class WorkerSlot {
  readonly sessions = new Set<SessionState>();
  private readonly turns = new RoundRobin<SessionState>();
  private readonly running = new Map<number, Pending>();
  private readonly opening = new Map<number, { resolve(): void; reject(error: unknown): void }>();
  private thread: Worker | undefined;
  private starting: Promise<void> | undefined;
  /** The current thread said it is ready (it reads messages only from then on). */
  private up = false;
  private nextCommand = 0;
  private closed = false;

  constructor(
    readonly index: number,
    private readonly start: WorkerStart,
    private readonly server: FollowedServer | undefined,
    private readonly limits: Readonly<SessionPoolLimits>,
  ) {}

  /** The current thread, started if there is none; rejects with why it could not start. */
  ready(): Promise<void> {
    if (this.closed) return Promise.reject(new ClosedError("session worker pool"));
    this.starting ??= this.spawn();
    return this.starting;
  }

  private spawn(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const thread = startWorkerThread(this.start);
      this.thread = thread;
      let up = false;
      thread.on("message", (message: WorkerMessage) => {
        if (message.type === "ready") {
          up = true;
          this.up = true;
          resolve();
        } else if (message.type === "start-failed") {
          reject(new WorkerThreadError(message.error));
          void thread.terminate();
        } else {
          this.receive(message);
        }
      });
      thread.on("error", (error) => {
        if (!up) reject(error);
        this.lost(thread, errorMessage(error), error);
      });
      thread.on("exit", (code) => {
        if (!up) reject(new SessionWorkerLostError(`it exited with code ${code} while starting`));
        this.lost(thread, `it exited with code ${code}`);
      });
    }).catch((error) => {
      // The next command tries a new thread instead of inheriting this failure.
      this.starting = undefined;
      this.thread = undefined;
      this.up = false;
      throw error;
    });
  }

  private post(message: HostMessage): void {
    this.thread?.postMessage(message);
  }

  async open(state: SessionState): Promise<void> {
    await this.ready();
    this.sessions.add(state);
    try {
      await new Promise<void>((resolve, reject) => {
        this.opening.set(state.id, { resolve, reject });
        this.post({ type: "open", sessionId: state.id, groups: state.groups });
      });
      state.openOnThread = true;
    } catch (error) {
      this.sessions.delete(state);
      throw error;
    }
  }

  exec(
    state: SessionState,
    command: string,
    options: { signal?: AbortSignal; cwd?: string },
  ): Promise<CommandResult> {
    if (state.closed || this.closed) return Promise.reject(new ClosedError("docs session"));
    const signal = options.signal;
    if (signal?.aborted) return Promise.resolve({ ...ABORTED });
    if (state.queue.length >= this.limits.maxQueuedCommandsPerSession) {
      return Promise.reject(
        new LimitError(
          "maxQueuedCommandsPerSession",
          `this docs session already has ${state.queue.length} commands waiting (at most ${this.limits.maxQueuedCommandsPerSession}); its commands run one at a time, so wait for earlier ones before sending more`,
        ),
      );
    }
    return new Promise<CommandResult>((resolve, reject) => {
      const onAbort = () => this.abort(state, pending);
      const pending: Pending = {
        id: this.nextCommand++,
        state,
        command,
        cwd: options.cwd,
        resolve,
        reject,
        done: () => signal?.removeEventListener("abort", onAbort),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      state.queue.push(pending);
      // A busy session joins the line when its command ends, behind those that waited meanwhile.
      if (state.running === undefined) this.turns.add(state);
      this.schedule();
    });
  }

  /** A waiting command is dropped; a running one is told to stop (it answers as just-bash does). */
  private abort(state: SessionState, pending: Pending): void {
    const at = state.queue.indexOf(pending);
    if (at >= 0) {
      state.queue.splice(at, 1);
      if (state.queue.length === 0) this.turns.remove(state);
      pending.done();
      pending.resolve({ ...ABORTED });
    } else if (this.running.get(pending.id) === pending) {
      this.post({ type: "cancel", commandId: pending.id });
    }
  }

  /** Starts commands while the worker has room: the next session in line that is not busy. */
  private schedule(): void {
    if (this.closed || this.turns.size === 0) return;
    if (!this.up) {
      // The thread died and its replacement is not running yet: start one, then come back.
      this.ready().then(
        () => this.schedule(),
        (error) => this.failAll(error),
      );
      return;
    }
    while (this.running.size < this.limits.maxConcurrentCommandsPerWorker) {
      const state = this.turns.take(() => true);
      if (!state) return;
      const pending = state.queue.shift() as Pending;
      state.running = pending;
      this.running.set(pending.id, pending);
      if (!state.openOnThread) {
        // A replacement thread: the session starts over there (its groups and directory, no /tmp).
        this.post({ type: "open", sessionId: state.id, groups: state.groups });
        state.openOnThread = true;
      }
      this.post({
        type: "exec",
        commandId: pending.id,
        sessionId: state.id,
        command: pending.command,
        cwd: pending.cwd ?? state.cwd,
      });
    }
  }

  private receive(message: WorkerMessage): void {
    switch (message.type) {
      case "opened":
        this.opening.get(message.sessionId)?.resolve();
        this.opening.delete(message.sessionId);
        return;
      case "open-failed":
        this.opening.get(message.sessionId)?.reject(new WorkerThreadError(message.error));
        this.opening.delete(message.sessionId);
        return;
      case "result":
      case "failed": {
        const pending = this.running.get(message.commandId);
        if (!pending) return;
        this.running.delete(message.commandId);
        const state = pending.state;
        if (state.running === pending) state.running = undefined;
        if (state.queue.length > 0 && !state.closed) this.turns.add(state);
        pending.done();
        if (message.type === "failed") {
          pending.reject(new WorkerThreadError(message.error));
        } else {
          const { cwd, storeUnavailable, ...result } = message.reply;
          state.cwd = cwd;
          pending.resolve(
            storeUnavailable
              ? { ...result, storeUnavailable: storeUnavailableFrom(storeUnavailable) }
              : result,
          );
        }
        this.schedule();
        return;
      }
      case "where-is-server":
        void this.whereIsServer(message.requestId);
        return;
      default:
        return;
    }
  }

  private async whereIsServer(requestId: number): Promise<void> {
    const server = this.server;
    if (!server) return;
    try {
      await server.refresh?.();
    } catch {
      // The worker's store reports the outage itself; here it only learns no new address.
    }
    this.post({ type: "server-url", requestId, url: server.url });
  }

  /** The thread stopped on its own: fail what its sessions sent, and start over on the next command. */
  private lost(thread: Worker, reason: string, cause?: unknown): void {
    if (thread !== this.thread) return;
    this.thread = undefined;
    this.up = false;
    this.starting = undefined;
    if (this.closed) return;
    const error = new SessionWorkerLostError(reason, { cause });
    this.failAll(error);
    for (const state of this.sessions) state.openOnThread = false;
    for (const waiting of this.opening.values()) waiting.reject(error);
    this.opening.clear();
    // Ready for the sessions' next commands without making them wait for a start.
    this.ready().catch(() => {});
  }

  async replace(reason: string): Promise<void> {
    const thread = this.thread;
    if (!thread) return;
    this.lost(thread, reason);
    await thread.terminate();
  }

  /** Every command running or waiting here fails with `error`. */
  private failAll(error: unknown): void {
    const failed = [...this.running.values()];
    this.running.clear();
    for (const state of this.sessions) {
      failed.push(...state.queue);
      state.queue = [];
      state.running = undefined;
      this.turns.remove(state);
    }
    for (const pending of failed) {
      pending.done();
      pending.reject(error);
    }
  }

  closeSession(state: SessionState): void {
    if (state.closed) return;
    state.closed = true;
    const dropped = state.queue;
    state.queue = [];
    this.turns.remove(state);
    for (const pending of dropped) {
      pending.done();
      pending.reject(new ClosedError("docs session"));
    }
    if (state.running) this.post({ type: "cancel", commandId: state.running.id });
    if (state.openOnThread) this.post({ type: "close", sessionId: state.id });
    this.sessions.delete(state);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.failAll(new ClosedError("session worker pool"));
    this.closed = true;
    const thread = this.thread;
    this.thread = undefined;
    await thread?.terminate();
  }
}
