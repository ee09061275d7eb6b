// Several servers, one palace: one real PostgreSQL server holding the palace's records, one real
// Chroma server holding its vectors, and two `atrium-palace mcp --http` processes (A and B), each
// on a palace directory of its own made by `atrium-palace init` with the same database (B's init
// adopts A's palace), each reached by the official MCP SDK client. A write through one server is
// seen through the other at once; kill -9 of a server while writes are in flight loses no
// acknowledged drawer and duplicates none, and the server started again serves the same palace;
// PostgreSQL shut down and started again under load gives each call the right answer or a
// retryable "not reachable" error (never a wrong answer, never a hung call), and both servers
// answer again without a restart. Loopback only, bounded in time, every process stopped by its PID.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type ChromaServer, startChromaServer } from "@atrium/chroma";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  freshDatabase,
  POSTGRES_MISSING,
  type RunningPostgres,
  startPostgresIfInstalled,
} from "../../packages/palace/test-support/postgres-server.ts";
import {
  type CliRun,
  connectPalace,
  isAlive,
  type PalaceMcp,
  type PalaceSession,
  type PalaceStores,
  processesMentioning,
  runPalaceCli,
  startPalaceMcp,
  stopPalaceMcp,
  type ToolAnswer,
} from "../serving/palace-servers.ts";

/** Each call's bound: an answer (or a tool error) within this long, or the call counts as hung. */
const CALL_TIMEOUT_MS = 10_000;
/** A CLI start through tsx takes seconds on this 2-core machine; two at once take longer. */
const START_TIMEOUT_MS = 60_000;
const WRITERS_PER_SERVER = 3;
/** How long a client told to retry waits first. */
const RETRY_PAUSE_MS = 50;

interface DrawerView {
  id: string;
  content: string;
  wing: string;
  room: string;
  hall: string;
  timestamp: string;
}

/** The fields of a drawer a test can know in advance (not filedAt, nor the access counts). */
function view(drawer: unknown): DrawerView {
  const { id, content, wing, room, hall, timestamp } = drawer as DrawerView;
  return { id, content, wing, room, hall, timestamp };
}

interface Draft {
  content: string;
  wing: string;
  room: string;
  timestamp: string;
}

const QUARTZ: Draft = {
  content: "The quartz lamp on pier seven glows violet at dusk.",
  wing: "harbour",
  room: "lights",
  timestamp: "2024-03-01T18:00:00.000Z",
};
const KETTLE: Draft = {
  content: "The copper kettle in the lighthouse whistles at noon.",
  wing: "harbour",
  room: "kitchen",
  timestamp: "2024-03-02T12:00:00.000Z",
};
const AFTER_KILL: Draft = {
  content: "The tugboat Marigold berthed at the granite quay after the storm.",
  wing: "harbour",
  room: "boats",
  timestamp: "2024-03-03T07:30:00.000Z",
};

/** A tool's structured answer; fails the test with the server's text when it was an error. */
function ok<T>(answer: ToolAnswer): T {
  if (answer.isError) throw new Error(`tool error: ${answer.text}`);
  expect(answer.text).toBe(JSON.stringify(answer.structured));
  return answer.structured as T;
}

async function add(session: PalaceSession, draft: Draft): Promise<DrawerView> {
  const added = ok<{ id: string; created: boolean }>(
    await session.call("add_drawer", { ...draft }, CALL_TIMEOUT_MS),
  );
  expect(added).toEqual({ id: expect.stringMatching(/^d_[0-9a-f]{24}$/), created: true });
  return { id: added.id, hall: "general", ...draft };
}

async function search(
  session: PalaceSession,
  query: string,
  mode: "bm25" | "hybrid" | "vector",
  k: number,
): Promise<DrawerView[]> {
  const { hits } = ok<{ hits: unknown[] }>(await session.call("search", { query, mode, k }, CALL_TIMEOUT_MS));
  return hits.map(view);
}

async function getDrawer(session: PalaceSession, id: string): Promise<DrawerView> {
  const { drawer } = ok<{ drawer: { contentHash: string; content: string } }>(
    await session.call("get_drawer", { id }, CALL_TIMEOUT_MS),
  );
  expect(drawer.contentHash).toBe(createHash("sha256").update(drawer.content).digest("hex"));
  return view(drawer);
}

/** Every drawer of `wing`, a page of 1000 at a time, in filing order. */
async function listWing(session: PalaceSession, wing: string): Promise<DrawerView[]> {
  const all: DrawerView[] = [];
  let cursor: string | undefined;
  do {
    const page = ok<{ drawers: unknown[]; nextCursor?: string }>(
      await session.call(
        "list_drawers",
        { wing, limit: 1_000, ...(cursor === undefined ? {} : { cursor }) },
        CALL_TIMEOUT_MS,
      ),
    );
    all.push(...page.drawers.map(view));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return all;
}

const status = async (session: PalaceSession) =>
  ok<Record<string, unknown>>(await session.call("status", {}, CALL_TIMEOUT_MS));

/** How many times each value occurs, for the ones that occur more than once. */
function repeated(values: readonly string[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return Object.fromEntries([...counts].filter(([, n]) => n > 1));
}

/** Runs `each` over `items`, `width` at a time. */
async function inBatches<T>(
  items: readonly T[],
  width: number,
  each: (item: T) => Promise<void>,
): Promise<void> {
  for (let at = 0; at < items.length; at += width) await Promise.all(items.slice(at, at + width).map(each));
}

/** One add_drawer a load loop made, and what became of it. */
interface Attempt {
  via: "A" | "B";
  draft: Draft;
  /** A word only this drawer has (letters and digits: one index term). */
  tag: string;
  startedAt: number;
  endedAt?: number;
  /** acked: answered created: true; failed: anything else (`error` says what). */
  outcome?: "acked" | "failed";
  id?: string;
  error?: string;
}

/** A call whose one right answer is known: `of` picks the part of its answer to compare. */
interface Probe {
  name: string;
  args: Record<string, unknown>;
  of: (structured: unknown) => unknown;
  right: unknown;
}

/** One call of a load loop: when it started, how long it took, and what it gave. */
interface Call {
  via: "A" | "B";
  kind: "read" | "write";
  startedAt: number;
  ms: number;
  outcome: "right" | "unavailable" | "wrong" | "thrown";
  text: string;
}

/** How many calls gave each outcome. */
function tallied(calls: readonly Call[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const call of calls) counts[call.outcome] = (counts[call.outcome] ?? 0) + 1;
  return counts;
}

/** The outcomes of the calls `which` picks, per server and kind, for the log. */
function tally(calls: readonly Call[], which: (call: Call) => boolean): string {
  const picked = calls.filter(which);
  return ["A", "B"]
    .flatMap((via) =>
      ["read", "write"].map(
        (kind) =>
          `${via} ${kind}s ${JSON.stringify(tallied(picked.filter((one) => one.via === via && one.kind === kind)))}`,
      ),
    )
    .join(", ");
}

describe("several atrium-palace mcp --http servers on one PostgreSQL palace", () => {
  let postgres: RunningPostgres | undefined;
  let chroma: ChromaServer | undefined;
  let root: string | undefined;
  let stores: PalaceStores;
  let dirA: string;
  let dirB: string;
  const inits: CliRun[] = [];
  let serverA: PalaceMcp | undefined;
  let serverB: PalaceMcp | undefined;
  let a: PalaceSession;
  let b: PalaceSession;
  const servers: PalaceMcp[] = [];
  const sessions: PalaceSession[] = [];
  /** Every PID this suite started (each server incarnation, Chroma, each postgres start). */
  const pids = new Set<number>();
  /** Whether a tool error's text is PalaceError "palace/unavailable" for this database. */
  let isUnavailable: (text: string) => boolean;

  const startServer = async (dir: string) => {
    const server = await startPalaceMcp(dir, stores, START_TIMEOUT_MS);
    servers.push(server);
    pids.add(server.pid);
    return server;
  };
  const connect = async (server: PalaceMcp) => {
    const session = await connectPalace(server.url, CALL_TIMEOUT_MS);
    sessions.push(session);
    return session;
  };

  beforeAll(async () => {
    postgres = await startPostgresIfInstalled();
    if (!postgres) return;
    pids.add(postgres.pid);
    root = mkdtempSync(join(tmpdir(), "atrium-e2e-palace-servers-"));
    chroma = await startChromaServer({ path: join(root, "chroma") });
    pids.add(chroma.pid);
    stores = { postgresUrl: await freshDatabase(postgres), chromaUrl: chroma.url };
    // What PalaceError "palace/unavailable" says over MCP, with the URL it names (no password).
    const prefix = `PostgreSQL at ${new URL(stores.postgresUrl).toString()} is not reachable (`;
    const suffix =
      "); a write either committed whole or not at all: retry it (filing a drawer again is safe, its id comes from its content)";
    isUnavailable = (text) =>
      text.startsWith(prefix) && text.endsWith(suffix) && text.length > prefix.length + suffix.length;
    dirA = join(root, "server-a");
    dirB = join(root, "server-b");
    // B's init comes second: it finds A's palace in the database and takes its settings.
    inits.push(await runPalaceCli(["init", dirA, "--name", "harbour"], stores, START_TIMEOUT_MS));
    inits.push(await runPalaceCli(["init", dirB], stores, START_TIMEOUT_MS));
    [serverA, serverB] = await Promise.all([startServer(dirA), startServer(dirB)]);
    [a, b] = await Promise.all([connect(serverA), connect(serverB)]);
  }, 120_000);

  afterAll(async () => {
    const exits: unknown[] = [];
    try {
      await Promise.all(sessions.map((session) => session.close()));
      // SIGTERM: each server still running lets its calls finish and exits with 0.
      const running = servers.filter(
        (server) => server.child.exitCode === null && server.child.signalCode === null,
      );
      exits.push(...(await Promise.all(running.map((server) => stopPalaceMcp(server)))));
      if (chroma) pids.add(chroma.pid);
      await chroma?.stop();
      if (postgres) pids.add(postgres.pid);
      await postgres?.stop();
    } finally {
      if (root) rmSync(root, { recursive: true, force: true });
    }
    expect(exits.filter((code) => code !== 0)).toEqual([]);
    // Nothing this suite started outlives it: no PID, nor any process naming its directories.
    expect([...pids].filter(isAlive)).toEqual([]);
    if (root) expect(processesMentioning(root)).toEqual([]);
    if (postgres) expect(processesMentioning(postgres.dataDir)).toEqual([]);
  }, 60_000);

  it("the second init adopts the first one's palace: same name, collection and embedding", async (context) => {
    if (!postgres) return context.skip(POSTGRES_MISSING);
    const config = (dir: string) => JSON.parse(readFileSync(join(dir, "palace.json"), "utf8"));
    const configA = config(dirA);
    const configB = config(dirB);
    const url = new URL(stores.postgresUrl).toString();
    expect(inits).toEqual([
      {
        code: 0,
        stdout: `created palace harbour in ${dirA} (embedding ${configA.embedding}; records in ${url})\n`,
        stderr: "",
      },
      {
        code: 0,
        stdout: `created palace harbour in ${dirB} (embedding ${configA.embedding}; records in ${url})\n`,
        stderr: "",
      },
    ]);
    expect(configA).toMatchObject({ name: "harbour", postgres: url });
    expect(configB).toEqual(configA);
  });

  it("a write through one is seen through the other at once", async (context) => {
    if (!postgres) return context.skip(POSTGRES_MISSING);
    const quartz = await add(a, QUARTZ);
    // Through B, with no wait: keyword search, hybrid search and the drawer itself.
    expect(await search(b, "quartz lamp violet", "bm25", 5)).toEqual([quartz]);
    expect(await search(b, "quartz lamp violet", "hybrid", 1)).toEqual([quartz]);
    expect(await getDrawer(b, quartz.id)).toEqual(quartz);

    const kettle = await add(b, KETTLE);
    expect(await search(a, "copper kettle whistles", "bm25", 5)).toEqual([kettle]);
    expect(await search(a, "copper kettle whistles", "hybrid", 1)).toEqual([kettle]);
    expect(await getDrawer(a, kettle.id)).toEqual(kettle);
    // Each filed once, whichever server is asked.
    expect(await listWing(a, "harbour")).toEqual([quartz, kettle]);
    expect(await listWing(b, "harbour")).toEqual([quartz, kettle]);

    const expected = {
      name: "harbour",
      embedding: JSON.parse(readFileSync(join(dirA, "palace.json"), "utf8")).embedding,
      identity: "the local client",
      admin: true,
      drawers: 2,
      wings: 1,
      rooms: 2,
      pinned: 0,
      pendingVectors: 0,
    };
    expect(await status(a)).toEqual(expected);
    expect(await status(b)).toEqual(expected);
  });

  it("kill -9 of a server mid-write loses nothing acknowledged and duplicates nothing", async (context) => {
    if (!postgres) return context.skip(POSTGRES_MISSING);
    const killed = serverA as PalaceMcp;
    const attempts: Attempt[] = [];
    let killedAt: number | undefined;
    let stopB = false;
    const writer = async (via: "A" | "B", session: PalaceSession, loop: number) => {
      for (let n = 0; via === "A" || !stopB; n++) {
        const tag = `${via.toLowerCase()}${loop}x${n}`;
        const draft = {
          content: `Cargo ledger ${tag}: twelve crates of tea unloaded at dawn.`,
          wing: "cargo",
          room: `loop-${via.toLowerCase()}${loop}`,
          timestamp: "2024-04-01T05:00:00.000Z",
        };
        const attempt: Attempt = { via, draft, tag, startedAt: Date.now() };
        attempts.push(attempt);
        try {
          const answer = await session.call("add_drawer", draft, CALL_TIMEOUT_MS);
          attempt.endedAt = Date.now();
          if (answer.isError) {
            // Never right here: B has no reason to fail, and A answers or is gone.
            attempt.outcome = "failed";
            attempt.error = `tool error: ${answer.text}`;
          } else {
            attempt.outcome = "acked";
            attempt.id = (answer.structured as { id: string }).id;
          }
        } catch (error) {
          attempt.endedAt = Date.now();
          attempt.outcome = "failed";
          attempt.error = String(error);
          // The server is gone: its clients stop.
          if (via === "A") return;
        }
      }
    };
    const loops = [
      ...Array.from({ length: WRITERS_PER_SERVER + 1 }, (_, loop) => writer("A", a, loop)),
      ...Array.from({ length: WRITERS_PER_SERVER - 1 }, (_, loop) => writer("B", b, loop)),
    ];
    let inFlightAtKill: Attempt[] = [];
    try {
      // A random moment once A's writes are well under way.
      const deadline = Date.now() + 20_000;
      while (attempts.filter((one) => one.via === "A" && one.outcome === "acked").length < 12) {
        if (Date.now() > deadline) throw new Error("A acknowledged fewer than 12 writes in 20 s");
        await sleep(20);
      }
      const delay = Math.floor(Math.random() * 500);
      await sleep(delay);
      inFlightAtKill = attempts.filter((one) => one.via === "A" && one.outcome === undefined);
      killedAt = Date.now();
      process.kill(killed.pid, "SIGKILL");
      expect(await killed.exited).toBe("SIGKILL");
      console.info(
        `palace-servers: A killed ${delay} ms after its 12th acknowledged write, ${inFlightAtKill.length} of its writes in flight`,
      );
      // What a host does once its server is gone: it closes the session, which ends the calls
      // still waiting on it (the SDK would otherwise wait for each call's time limit).
      await a.close();
      // B goes on writing for a while: it never notices.
      await sleep(1_000);
    } finally {
      stopB = true;
      await Promise.all(loops);
    }
    expect(inFlightAtKill.length).toBeGreaterThan(0);

    const acked = attempts.filter((one) => one.outcome === "acked");
    const unacked = attempts.filter((one) => one.outcome !== "acked");
    // Only A's calls failed, and only those in flight at the kill (each got the SDK's error).
    expect(unacked.filter((one) => !inFlightAtKill.includes(one))).toEqual([]);
    for (const one of unacked) {
      expect(one.error).toMatch(/^(McpError: MCP error -32000: Connection closed|TypeError: fetch failed)$/);
    }
    expect(
      acked.filter((one) => one.via === "B" && one.startedAt > (killedAt as number)).length,
    ).toBeGreaterThan(0);

    // One more write through B: it also applies whatever vectors A's death left pending.
    const afterKill = await add(b, AFTER_KILL);
    const listed = await listWing(b, "cargo");
    expect(repeated(listed.map((drawer) => drawer.content))).toEqual({});
    expect(repeated(listed.map((drawer) => drawer.id))).toEqual({});
    const byContent = new Map(listed.map((drawer) => [drawer.content, drawer]));
    // Every acknowledged drawer is there, once, exactly as filed, under the id it was given.
    const ackedViews = acked.map((one) => ({ id: one.id as string, hall: "general", ...one.draft }));
    expect(ackedViews.map((drawer) => byContent.get(drawer.content))).toEqual(ackedViews);
    // The rest: A's unacknowledged writes (in flight at the kill), each there once or not at all.
    const ackedContents = new Set(acked.map((one) => one.draft.content));
    const extra = listed.filter((drawer) => !ackedContents.has(drawer.content));
    const unackedByContent = new Map(unacked.map((one) => [one.draft.content, one]));
    expect(extra.filter((drawer) => !unackedByContent.has(drawer.content))).toEqual([]);
    expect(listed.length).toBe(acked.length + extra.length);
    expect(extra.length).toBeLessThanOrEqual(unacked.length);
    for (const drawer of extra)
      expect(drawer).toEqual({ ...drawer, hall: "general", ...unackedByContent.get(drawer.content)?.draft });

    // Each drawer's keyword row and vector are there too: its own word finds it alone, and its own
    // text is its nearest vector.
    const tagOf = new Map(attempts.map((one) => [one.draft.content, one.tag]));
    await inBatches(listed, 4, async (drawer) => {
      expect(await search(b, tagOf.get(drawer.content) as string, "bm25", 5)).toEqual([drawer]);
      expect((await search(b, drawer.content, "vector", 1))[0]).toEqual(drawer);
    });
    const counts = { drawers: 2 + listed.length + 1, pendingVectors: 0 };
    expect(await status(b)).toMatchObject(counts);

    // A again, on the same directory: the same palace, with what B wrote after the kill.
    serverA = await startServer(dirA);
    a = await connect(serverA);
    expect(await status(a)).toEqual(await status(b));
    expect(await status(a)).toMatchObject(counts);
    expect(await search(a, "tugboat Marigold granite", "bm25", 5)).toEqual([afterKill]);
    expect(await search(a, "tugboat Marigold granite", "hybrid", 1)).toEqual([afterKill]);
    expect(await getDrawer(a, afterKill.id)).toEqual(afterKill);
    expect(await listWing(a, "cargo")).toEqual(listed);
  }, 60_000);

  it("PostgreSQL restarted under load gives clear retryable errors, never wrong answers", async (context) => {
    if (!postgres) return context.skip(POSTGRES_MISSING);
    const server = postgres;
    const [quartz] = await search(a, "quartz lamp violet", "bm25", 5);
    const [kettle] = await search(a, "copper kettle whistles", "bm25", 5);
    const [tugboat] = await search(a, "tugboat Marigold granite", "bm25", 5);
    expect([quartz?.content, kettle?.content, tugboat?.content]).toEqual([
      QUARTZ.content,
      KETTLE.content,
      AFTER_KILL.content,
    ]);
    const hitsOf = (structured: unknown) => (structured as { hits: unknown[] }).hits.map(view);
    // Calls whose one right answer is known.
    const probes: Probe[] = [
      {
        name: "search",
        args: { query: "quartz lamp violet", mode: "bm25", k: 5 },
        of: hitsOf,
        right: [quartz],
      },
      {
        name: "search",
        args: { query: "copper kettle whistles", mode: "hybrid", k: 1 },
        of: hitsOf,
        right: [kettle],
      },
      {
        name: "get_drawer",
        args: { id: tugboat?.id },
        of: (structured) => view((structured as { drawer: unknown }).drawer),
        right: tugboat,
      },
    ];

    const calls: Call[] = [];
    const writes: Attempt[] = [];
    let stop = false;
    /** One call, bounded, and what it gave: the right answer, PostgreSQL's retryable error, or else. */
    const timed = async (
      via: "A" | "B",
      kind: "read" | "write",
      call: () => Promise<ToolAnswer>,
      isRight: (answer: ToolAnswer) => boolean,
    ): Promise<Call> => {
      const startedAt = Date.now();
      let outcome: Call["outcome"];
      let text: string;
      try {
        const answer = await call();
        text = answer.text;
        if (answer.isError) outcome = isUnavailable(answer.text) ? "unavailable" : "wrong";
        else outcome = isRight(answer) ? "right" : "wrong";
      } catch (error) {
        // The SDK's error: the call's time limit ran out, or the HTTP exchange failed.
        outcome = "thrown";
        text = String(error);
      }
      const record = { via, kind, startedAt, ms: Date.now() - startedAt, outcome, text };
      calls.push(record);
      return record;
    };
    const reader = async (via: "A" | "B", session: PalaceSession, first: number) => {
      for (let n = first; !stop; n++) {
        const probe = probes[n % probes.length] as Probe;
        const record = await timed(
          via,
          "read",
          () => session.call(probe.name, probe.args, CALL_TIMEOUT_MS),
          (answer) => JSON.stringify(probe.of(answer.structured)) === JSON.stringify(probe.right),
        );
        // Told to retry, a client retries a moment later.
        if (record.outcome === "unavailable") await sleep(RETRY_PAUSE_MS);
      }
    };
    const writer = async (via: "A" | "B", session: PalaceSession) => {
      for (let n = 0; !stop; n++) {
        const tag = `${via.toLowerCase()}o${n}`;
        const draft = {
          content: `Outage ledger ${tag}: four barrels of rum stored below deck.`,
          wing: "outage",
          room: `writer-${via.toLowerCase()}`,
          timestamp: "2024-05-01T10:00:00.000Z",
        };
        const attempt: Attempt = { via, draft, tag, startedAt: Date.now() };
        writes.push(attempt);
        const record = await timed(
          via,
          "write",
          () => session.call("add_drawer", draft, CALL_TIMEOUT_MS),
          (answer) => {
            const filed = answer.structured as { id: string; created: boolean };
            attempt.id = filed.id;
            return filed.created && /^d_[0-9a-f]{24}$/.test(filed.id);
          },
        );
        attempt.endedAt = Date.now();
        attempt.outcome = record.outcome === "right" ? "acked" : "failed";
        if (record.outcome !== "right") attempt.error = record.text;
        if (record.outcome === "unavailable") await sleep(RETRY_PAUSE_MS);
      }
    };
    const loops = [
      reader("A", a, 0),
      reader("A", a, 1),
      reader("B", b, 1),
      reader("B", b, 2),
      writer("A", a),
      writer("B", b),
    ];
    let downAt = 0;
    let upAt = 0;
    // What a load balancer's health check sees (GET /health, no token with --no-auth).
    const health = async (mcp: PalaceMcp) => {
      const response = await fetch(mcp.url.replace(/\/mcp$/, "/health"));
      return { status: response.status, body: await response.json() };
    };
    const healthy = { status: 200, body: { ok: true } };
    const down = { status: 503, body: { ok: false, reason: "the palace's store does not answer" } };
    expect([await health(serverA as PalaceMcp), await health(serverB as PalaceMcp)]).toEqual([
      healthy,
      healthy,
    ]);
    try {
      await sleep(800);
      downAt = Date.now();
      await server.shutdown();
      expect(await health(serverA as PalaceMcp)).toEqual(down);
      await sleep(1_000);
      await server.start();
      upAt = Date.now();
      pids.add(server.pid);
      await sleep(2_000);
      expect([await health(serverA as PalaceMcp), await health(serverB as PalaceMcp)]).toEqual([
        healthy,
        healthy,
      ]);
    } finally {
      stop = true;
      await Promise.all(loops);
    }
    console.info(
      `palace-servers: PostgreSQL down for ${upAt - downAt} ms; calls started before: ${tally(calls, (one) => one.startedAt < downAt)}; while down: ${tally(calls, (one) => one.startedAt >= downAt && one.startedAt < upAt)}; after: ${tally(calls, (one) => one.startedAt >= upAt)}`,
    );

    // No wrong answer, no other error, no hung call: each answered within its bound.
    expect(calls.filter((one) => one.outcome !== "right" && one.outcome !== "unavailable")).toEqual([]);
    // The outage was seen, by both servers, as PostgreSQL's retryable error.
    for (const via of ["A", "B"] as const) {
      expect(calls.filter((one) => one.via === via && one.outcome === "unavailable").length).toBeGreaterThan(
        0,
      );
    }
    // Once PostgreSQL is back, each server answers right again, reads and writes, without a restart.
    for (const via of ["A", "B"] as const) {
      for (const kind of ["read", "write"] as const) {
        const after = calls.filter((one) => one.via === via && one.kind === kind && one.startedAt >= upAt);
        expect(after.length).toBeGreaterThan(0);
        expect({ via, kind, after: tallied(after) }).toEqual({ via, kind, after: { right: after.length } });
      }
    }
    for (const session of [a, b]) {
      for (const probe of probes) {
        expect(probe.of(ok(await session.call(probe.name, probe.args, CALL_TIMEOUT_MS)))).toEqual(
          probe.right,
        );
      }
    }

    // Every acknowledged write is there exactly once, through either server, as filed; one that
    // was not acknowledged is there once or not at all.
    const listed = await listWing(b, "outage");
    expect(await listWing(a, "outage")).toEqual(listed);
    expect(repeated(listed.map((drawer) => drawer.content))).toEqual({});
    const byContent = new Map(listed.map((drawer) => [drawer.content, drawer]));
    const acked = writes.filter((one) => one.outcome === "acked");
    const ackedViews = acked.map((one) => ({ id: one.id as string, hall: "general", ...one.draft }));
    expect(ackedViews.map((drawer) => byContent.get(drawer.content))).toEqual(ackedViews);
    const ackedContents = new Set(acked.map((one) => one.draft.content));
    const extra = listed.filter((drawer) => !ackedContents.has(drawer.content));
    const unackedContents = new Set(
      writes.filter((one) => one.outcome !== "acked").map((one) => one.draft.content),
    );
    expect(extra.filter((drawer) => !unackedContents.has(drawer.content))).toEqual([]);
    expect(listed.length).toBe(acked.length + extra.length);
    // An unacknowledged write may be there (committed before PostgreSQL went away, its vectors
    // after): the error said so, and filing it again is a no-op.

    // One write more through each server catches the vectors up; both count the same palace.
    await add(a, {
      content: "The pilot boat returned before the tide turned.",
      wing: "harbour",
      room: "boats",
      timestamp: "2024-05-02T08:00:00.000Z",
    });
    await add(b, {
      content: "The harbour master signed the manifest in green ink.",
      wing: "harbour",
      room: "office",
      timestamp: "2024-05-02T09:00:00.000Z",
    });
    const statusA = await status(a);
    expect(statusA).toEqual(await status(b));
    expect(statusA).toMatchObject({ pendingVectors: 0 });
  }, 60_000);
});
