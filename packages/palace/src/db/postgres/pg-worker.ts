import { type MessagePort, workerData } from "node:worker_threads";
import pg from "pg";
import type { PgFailure, PgReply, PgRequest, PgWorkerData } from "./pg-protocol.js";

// The palace's integers (rowids, counts, millisecond times) fit a double; pg would give int8
// and numeric as strings.
pg.types.setTypeParser(pg.types.builtins.INT8, Number);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, Number);

/**
 * The thread that owns the PostgreSQL connection of one `PgSyncClient`: it answers one request
 * at a time and wakes the waiting thread through the shared flag. A lost connection is dropped
 * and made again on the next request, so a restarted server is picked up without a restart here.
 */
const data = workerData as PgWorkerData;
const flag = new Int32Array(data.flag);
const port = data.port as unknown as MessagePort;
let client: pg.Client | undefined;
/** Connections made so far: a new one means any transaction of the last one is gone. */
let connections = 0;
const connectionName = () => `${data.instance}:${connections}`;

async function connection(): Promise<pg.Client> {
  if (client) return client;
  const next = new pg.Client({
    connectionString: data.url,
    connectionTimeoutMillis: data.connectTimeoutMs,
    statement_timeout: data.statementTimeoutMs,
    lock_timeout: data.lockTimeoutMs,
    application_name: "atrium-palace",
  });
  // Emitted when the server goes away between requests; the next request reconnects.
  next.on("error", () => {
    if (client === next) client = undefined;
  });
  await next.connect();
  // The palace's queries are short; PostgreSQL's JIT compiles for ~0.4 s whenever a fresh table's
  // missing statistics make a plan look costly, which cost a search 100 times its run time.
  await next.query("SET jit = off");
  connections++;
  client = next;
  return next;
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EHOSTUNREACH",
]);

function failure(error: unknown): PgFailure {
  const { message, code, detail } = error as { message?: string; code?: string; detail?: string };
  const text = message ?? String(error);
  const connectionLost =
    (code !== undefined && (CONNECTION_CODES.has(code) || /^(08|57P)/.test(code))) ||
    /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i.test(
      text,
    );
  return { message: text, connectionLost, ...(code ? { code } : {}), ...(detail ? { detail } : {}) };
}

async function answer(request: PgRequest): Promise<PgReply> {
  if (request.kind === "close") {
    await client?.end().catch(() => {});
    client = undefined;
    return { ok: true, rows: [], changes: 0 };
  }
  if (request.pinned !== undefined && (client === undefined || connectionName() !== request.pinned)) {
    // Connecting again would run the rest of the transaction outside it, in autocommit.
    throw Object.assign(
      new Error("the connection was lost inside a transaction, which PostgreSQL rolled back"),
      { code: "08006" },
    );
  }
  const current = await connection();
  try {
    if (request.kind === "batch") {
      const results = (await current.query(request.sql)) as pg.QueryResult | pg.QueryResult[];
      const batchChanges = (Array.isArray(results) ? results : [results]).map(
        (result) => result.rowCount ?? 0,
      );
      return { ok: true, rows: [], changes: 0, batchChanges };
    }
    const result =
      request.kind === "exec"
        ? await current.query(request.sql)
        : await current.query({ name: request.name, text: request.sql, values: request.params });
    // A script answers with one result per statement; the last is the one asked for.
    const last = Array.isArray(result) ? result[result.length - 1] : result;
    return { ok: true, rows: last?.rows ?? [], changes: last?.rowCount ?? 0 };
  } catch (error) {
    const reply = failure(error);
    if (reply.connectionLost && client === current) {
      client = undefined;
      current.end().catch(() => {});
    }
    throw error;
  }
}

port.on("message", (request: PgRequest) => {
  answer(request)
    .then(
      (reply) => reply,
      (error: unknown): PgReply => {
        const reason = failure(error);
        if (reason.connectionLost) client = undefined;
        return { ok: false, error: reason };
      },
    )
    .then((reply) => {
      port.postMessage({ ...reply, seq: (request as { seq?: number }).seq, connection: connectionName() });
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
    });
});
