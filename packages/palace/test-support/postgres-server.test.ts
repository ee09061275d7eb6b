// The throwaway PostgreSQL server itself: it runs on loopback with bytewise collation, keeps
// committed rows across a SIGKILL of every PostgreSQL process and a start on the same data, runs
// beside a second one, and leaves no process and no directory once stopped. Skipped where
// PostgreSQL is not installed, except under CI=true, where that fails.
import { existsSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  freshDatabase,
  POSTGRES_MISSING,
  POSTGRES_USER,
  type RunningPostgres,
  startPostgres,
  startPostgresIfInstalled,
} from "./postgres-server.ts";

/** Runs `sql` on a connection of its own; the rows. */
async function query<Row>(url: string, sql: string, params: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as Row[];
  } finally {
    await client.end();
  }
}

/** The error process.kill(pid, 0) throws: ESRCH once the process is gone. */
function probe(pid: number): string | undefined {
  try {
    process.kill(pid, 0);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
}

describe("a throwaway PostgreSQL server", () => {
  let server: RunningPostgres | undefined;
  const started: RunningPostgres[] = [];

  beforeAll(async () => {
    server = await startPostgresIfInstalled();
    if (server) started.push(server);
  }, 60_000);

  afterAll(async () => {
    for (const each of started) await each.stop();
  });

  it("answers on 127.0.0.1 only, with C collation and UTF-8, as the atrium superuser", async (context) => {
    if (!server) return context.skip(POSTGRES_MISSING);
    expect(server.url).toBe(`postgres://${POSTGRES_USER}@127.0.0.1:${server.port}/atrium`);
    expect(await query(server.url, "SELECT 1 AS one")).toEqual([{ one: 1 }]);
    expect(await query(server.url, "SHOW listen_addresses")).toEqual([{ listen_addresses: "127.0.0.1" }]);
    // The database's collation from pg_database: `SHOW lc_collate` is gone from PostgreSQL 16 on.
    expect(
      await query(
        server.url,
        "SELECT current_user, current_database(), pg_encoding_to_char(encoding) AS encoding, datcollate FROM pg_database WHERE datname = current_database()",
      ),
    ).toEqual([{ current_user: "atrium", current_database: "atrium", encoding: "UTF8", datcollate: "C" }]);
    // Bytewise: upper case before lower case, "é" (0xC3 0xA9) after "z".
    const sorted = await query<{ word: string }>(
      server.url,
      "SELECT word FROM unnest(ARRAY['b', 'é', 'a', 'Z', 'z']) AS word ORDER BY word",
    );
    expect(sorted.map((row) => row.word)).toEqual(["Z", "a", "b", "z", "é"]);
    expect(server.running()).toBe(true);
    expect(server.log()).toContain("database system is ready to accept connections");
  });

  it("gives each suite a fresh database of its own", async (context) => {
    if (!server) return context.skip(POSTGRES_MISSING);
    const first = await freshDatabase(server);
    const second = await freshDatabase(server, "suite_two");
    expect(second).toBe(`postgres://${POSTGRES_USER}@127.0.0.1:${server.port}/suite_two`);
    expect(first).not.toBe(second);
    await query(first, "CREATE TABLE t (v text)");
    await query(first, "INSERT INTO t VALUES ('only here')");
    expect(await query(first, "SELECT v FROM t")).toEqual([{ v: "only here" }]);
    await expect(query(second, "SELECT v FROM t")).rejects.toThrow('relation "t" does not exist');
    await expect(freshDatabase(server, "suite_two")).rejects.toThrow('database "suite_two" already exists');
    await expect(freshDatabase(server, "Bad-Name")).rejects.toThrow(
      'postgres: database name "Bad-Name" must match [a-z_][a-z0-9_]{0,62}',
    );
  });

  it("keeps a committed row through a SIGKILL of the server and a start on the same data and port", async (context) => {
    if (!server) return context.skip(POSTGRES_MISSING);
    const url = await freshDatabase(server, "crash");
    await query(url, "CREATE TABLE kept (id integer PRIMARY KEY, v text)");
    await query(url, "INSERT INTO kept VALUES (1, 'committed before the kill')");
    const before = server.pid;
    await server.kill();
    expect(probe(before)).toBe("ESRCH");
    expect(server.running()).toBe(false);
    await expect(query(url, "SELECT 1")).rejects.toThrow("ECONNREFUSED");
    await server.start();
    expect(server.pid).not.toBe(before);
    expect(await query(url, "SELECT id, v FROM kept")).toEqual([{ id: 1, v: "committed before the kill" }]);
    // PostgreSQL saw the kill as a crash and replayed its WAL.
    expect(server.log()).toContain("database system was interrupted");
    await expect(server.start()).rejects.toThrow(`postgres on 127.0.0.1:${server.port} is already running`);
  });

  it("keeps its data through a fast shutdown and a start", async (context) => {
    if (!server) return context.skip(POSTGRES_MISSING);
    const url = await freshDatabase(server, "restart");
    await query(url, "CREATE TABLE kept (v text)");
    await query(url, "INSERT INTO kept VALUES ('committed before the shutdown')");
    const before = server.pid;
    await server.shutdown();
    expect(probe(before)).toBe("ESRCH");
    await server.start();
    expect(await query(url, "SELECT v FROM kept")).toEqual([{ v: "committed before the shutdown" }]);
    expect(server.log()).toContain("database system was shut down at");
  });

  it("runs beside a second server; stop() ends its process and removes its data", async (context) => {
    if (!server) return context.skip(POSTGRES_MISSING);
    const second = await startPostgres({ database: "second" });
    started.push(second);
    expect(second.port).not.toBe(server.port);
    expect(second.dataDir).not.toBe(server.dataDir);
    await query(second.url, "CREATE TABLE here (v text)");
    await expect(query(server.url, "SELECT * FROM here")).rejects.toThrow('relation "here" does not exist');
    const [a, b] = await Promise.all([
      query(server.url, "SELECT current_setting('port') AS port"),
      query(second.url, "SELECT current_setting('port') AS port"),
    ]);
    expect([a, b]).toEqual([[{ port: String(server.port) }], [{ port: String(second.port) }]]);

    const { pid, dataDir } = second;
    expect(existsSync(dataDir)).toBe(true);
    await second.stop();
    expect(probe(pid)).toBe("ESRCH");
    expect(existsSync(dataDir)).toBe(false);
    expect(second.running()).toBe(false);
    // A second stop() does nothing; a start() after it says why it cannot.
    await second.stop();
    await expect(second.start()).rejects.toThrow(
      `postgres on 127.0.0.1:${second.port}: start() after stop() (its directory is gone)`,
    );
    expect(server.running()).toBe(true);
  });
});
