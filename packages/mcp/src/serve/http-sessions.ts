import type { ServerResponse } from "node:http";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { McpIdentity } from "./client-identity.js";

export interface HttpSession {
  readonly id: string;
  readonly transport: StreamableHTTPServerTransport;
  /** Who opened the session; every later request must come from the same identity. */
  readonly identity: McpIdentity | undefined;
  /** When its last request ended (or began, while one is open). */
  lastSeen: number;
  /** HTTP requests of this session still open (a call, or a client's standing GET stream). */
  open: number;
}

/**
 * The open sessions of one HTTP server. A session is idle while none of its requests is open:
 * a connected SDK client always holds its GET stream open, so an idle session is one whose
 * client vanished, or one that left without ending it (`close()` without `terminateSession()`).
 * Idle sessions expire after `idleMs`, and the one idle longest gives way to a new client
 * when the table is full, so vanished clients can never lock others out.
 */
export class HttpSessions {
  readonly #sessions = new Map<string, HttpSession>();
  readonly #sweep: NodeJS.Timeout;

  constructor(
    readonly max: number,
    readonly idleMs: number,
  ) {
    this.#sweep = setInterval(() => this.#expire(), Math.max(10, Math.min(idleMs / 2, 60_000)));
    this.#sweep.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  get(id: string): HttpSession | undefined {
    return this.#sessions.get(id);
  }

  add(id: string, transport: StreamableHTTPServerTransport, identity: McpIdentity | undefined): HttpSession {
    const session: HttpSession = { id, transport, identity, lastSeen: Date.now(), open: 0 };
    this.#sessions.set(id, session);
    return session;
  }

  delete(id: string): void {
    this.#sessions.delete(id);
  }

  /** Counts `res` as open on `session` until it ends. */
  begin(session: HttpSession, res: ServerResponse): void {
    session.open++;
    session.lastSeen = Date.now();
    res.once("close", () => {
      session.open--;
      session.lastSeen = Date.now();
    });
  }

  /** Sessions opened by the identity named `name`. */
  countOf(name: string): number {
    let count = 0;
    for (const session of this.#sessions.values()) if (session.identity?.name === name) count++;
    return count;
  }

  /**
   * Closes the session idle longest to make room (only among `name`'s sessions when given);
   * false when every such session has a request open.
   */
  evictOldestIdle(name?: string): boolean {
    let oldest: HttpSession | undefined;
    for (const session of this.#sessions.values()) {
      if (name !== undefined && session.identity?.name !== name) continue;
      if (session.open === 0 && (!oldest || session.lastSeen < oldest.lastSeen)) oldest = session;
    }
    if (!oldest) return false;
    this.#end(oldest);
    return true;
  }

  async closeAll(): Promise<void> {
    clearInterval(this.#sweep);
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(all.map((session) => session.transport.close().catch(() => {})));
  }

  #expire(): void {
    const cutoff = Date.now() - this.idleMs;
    for (const session of this.#sessions.values()) {
      if (session.open === 0 && session.lastSeen < cutoff) this.#end(session);
    }
  }

  #end(session: HttpSession): void {
    // Out of the table now, so its slot is free at once; the transport's onclose ends the rest.
    this.#sessions.delete(session.id);
    void session.transport.close().catch(() => {});
  }
}
