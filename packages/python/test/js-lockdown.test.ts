// The worker's second wall: after the lockdown, Node's process and network doors throw in that
// thread (checked in a thread of its own: the lockdown would break the test runner's).
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { expect, it } from "vitest";

it("closes child_process, network and native-module doors in the worker thread", async () => {
  const tsxApi = new URL("./index.mjs", pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api")))
    .href;
  const lockdown = new URL("../src/worker/js-lockdown.ts", import.meta.url).href;
  const script = `
    const { parentPort } = require("node:worker_threads");
    // Taken before the lockdown, which also replaces the global require.
    const load = require;
    import(${JSON.stringify(tsxApi)}).then(async (api) => {
      api.register();
      const { lockDownWorkerThread } = await import(${JSON.stringify(lockdown)});
      lockDownWorkerThread();
      const attempts = {
        spawnSync: () => load("node:child_process").spawnSync("true", [], { shell: true }),
        execSync: () => load("node:child_process").execSync("true"),
        connect: () => load("node:net").connect(80, "127.0.0.1"),
        httpGet: () => load("node:http").get("http://127.0.0.1/"),
        require: () => require("node:fs"),
        fetch: () => fetch("http://127.0.0.1/"),
        binding: () => process.binding("spawn_sync"),
        dlopen: () => process.dlopen({}, "/nonexistent.node"),
        kill: () => process.kill(process.pid, 0),
        getBuiltinModule: () => process.getBuiltinModule("node:fs"),
        worker: () => new (load("node:worker_threads").Worker)("1", { eval: true }),
        env: () => { if (Object.keys(process.env).length > 0 || process.env.PATH !== undefined) throw new Error("env readable"); throw new Error("env empty"); },
      };
      const outcomes = {};
      for (const [name, attempt] of Object.entries(attempts)) {
        try { attempt(); outcomes[name] = "allowed"; } catch (error) { outcomes[name] = error.name + ": " + error.message; }
      }
      parentPort.postMessage(outcomes);
    });
  `;
  const worker = new Worker(script, { eval: true });
  const outcomes = await new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  await worker.terminate();
  const refused = (what: string) => `LockedDownError: ${what} is not available inside the Python sandbox`;
  expect(outcomes).toEqual({
    spawnSync: refused("child_process.spawnSync"),
    execSync: refused("child_process.execSync"),
    connect: refused("net.connect"),
    httpGet: refused("http.get"),
    fetch: refused("fetch"),
    binding: refused("process.binding"),
    dlopen: refused("process.dlopen"),
    require: refused("require"),
    kill: refused("process.kill"),
    getBuiltinModule: refused("process.getBuiltinModule"),
    worker: refused("worker_threads.Worker"),
    env: "Error: env empty",
  });
}, 60_000);
