import { createRequire } from "node:module";

/**
 * The second wall of the sandbox worker, behind the Python-level guards of the harness: the
 * worker is a Node thread, and Emscripten's runtime reaches Node APIs from inside the wasm
 * instance (`os.system` is `child_process.spawnSync` with a shell, sockets ride on `ws`). Once
 * Pyodide has loaded, every such door is replaced by a function that throws, so even code that
 * got past the harness finds no process, network or native-module API in this thread.
 * Filesystem reads stay: Pyodide has already read its files, and the guest's filesystem is the
 * in-memory one inside the wasm instance (the harness refuses `open` outside /lib anyway).
 */
export class LockedDownError extends Error {
  constructor(what: string) {
    super(`${what} is not available inside the Python sandbox`);
    this.name = "LockedDownError";
  }
}

const blocked = (what: string) =>
  function refuse(): never {
    throw new LockedDownError(what);
  };

const MODULE_DOORS: Record<string, readonly string[]> = {
  child_process: ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"],
  net: ["connect", "createConnection", "createServer"],
  tls: ["connect", "createServer"],
  http: ["request", "get", "createServer"],
  https: ["request", "get", "createServer"],
  http2: ["connect", "createServer"],
  dgram: ["createSocket"],
  // A new Worker is a fresh thread without this lockdown.
  worker_threads: ["Worker"],
};

/** Applies the lockdown to this thread; returns the names of what it closed (for tests). */
export function lockDownWorkerThread(): string[] {
  const require = createRequire(import.meta.url);
  const closed: string[] = [];
  for (const [name, functions] of Object.entries(MODULE_DOORS)) {
    const exports = require(`node:${name}`) as Record<string, unknown>;
    for (const fn of functions) {
      exports[fn] = blocked(`${name}.${fn}`);
      closed.push(`${name}.${fn}`);
    }
  }
  const net = require("node:net") as { Socket: { prototype: Record<string, unknown> } };
  net.Socket.prototype.connect = blocked("net.Socket.connect");
  closed.push("net.Socket.connect");
  const proc = process as unknown as Record<string, unknown>;
  // getBuiltinModule hands out any Node module (node:fs) without require.
  for (const fn of ["binding", "_linkedBinding", "dlopen", "kill", "chdir", "getBuiltinModule"]) {
    proc[fn] = blocked(`process.${fn}`);
    closed.push(`process.${fn}`);
  }
  // The host's environment (keys, tokens) is not the sandbox's business; Pyodide has read what
  // it needed from it while loading.
  proc.env = Object.freeze(Object.create(null));
  closed.push("process.env");
  const global = globalThis as Record<string, unknown>;
  for (const name of ["fetch", "WebSocket", "XMLHttpRequest", "EventSource", "require"]) {
    global[name] = blocked(name);
    closed.push(name);
  }
  return closed;
}

/** Network doors closed before Pyodide loads: proof that loading it fetches nothing. */
export function blockFetchBeforeLoad(): void {
  const global = globalThis as Record<string, unknown>;
  global.fetch = blocked("fetch (Pyodide must load offline, from the npm package)");
}
