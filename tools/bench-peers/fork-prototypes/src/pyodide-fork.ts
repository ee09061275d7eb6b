/**
 * Can a Pyodide session with user state be forked? Pyodide 314 has a private memory snapshot:
 * `loadPyodide({ _makeSnapshot: true })`, then `pyodide.makeMemorySnapshot()` (the wasm heap plus
 * the table of JS objects Python holds), and `loadPyodide({ _loadSnapshot })` to start a second
 * interpreter from it. This prototype measures the cold start it replaces, the snapshot, the
 * start from it, what survives (variables, functions, imported modules, files) and that the two
 * interpreters diverge afterwards. It prints one JSON object.
 *
 *   pnpm --filter @atrium/fork-prototypes fork:pyodide [-- --restores N]
 */
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { loadPyodide, type PyodideAPI } from "pyodide";
import { argument, type Figures, median, memoryMb, timed } from "./measure.js";

const SESSION = `
import json, math
squares = [i * i for i in range(10)]
def bump(n):
    return n + 1
with open("/tmp/note.txt", "w") as f:
    f.write("kept?")
`;

function state(py: PyodideAPI): string {
  return py.runPython(`
import os
json.dumps({"squares": squares, "bump": bump(41), "pi": round(math.pi, 4),
            "file": os.path.exists("/tmp/note.txt")})`) as string;
}

const restores = argument("restores", 5);
const figures: Figures = {};

const plain = await timed(() => loadPyodide());
figures.coldLoadMs = plain.ms;
const baseRss = memoryMb().rss;

const parent = await loadPyodide({ _makeSnapshot: true });
parent.runPython(SESSION);
const parentBefore = state(parent);
const snapshot = await timed(() => parent.makeMemorySnapshot());
figures.snapshotMs = snapshot.ms;
figures.snapshotMb = snapshot.value.byteLength / 2 ** 20;

const restoreTimes: number[] = [];
let child: PyodideAPI | undefined;
for (let i = 0; i < restores; i++) {
  const started = performance.now();
  child = await loadPyodide({ _loadSnapshot: snapshot.value });
  restoreTimes.push(performance.now() - started);
}
figures.restoreMs = median(restoreTimes);
// Each interpreter is a wasm instance of its own; the growth is over the one plain interpreter.
figures.rssGrowthPerRestoreMb = (memoryMb().rss - baseRss) / (restores + 1);
if (!child) throw new Error("no restore ran");

const childAfterRestore = state(child);
child.runPython("squares.append(-1)");
parent.runPython("squares.append(100)");
const diverged = {
  parent: parent.runPython("squares[-1]") as number,
  child: child.runPython("squares[-1]") as number,
};

/**
 * Python that holds a JS object (a tool bridged in as a function) cannot be snapshotted as it is:
 * the JS side is not in the wasm heap. A serializer names each such object and the new
 * interpreter's deserializer hands back its own. Tried two ways of bridging: a JS module (works)
 * and `globals.set` (leaves a hole in Pyodide's JS-object table that the snapshot refuses).
 */
const add = (a: number, b: number) => a + b;
const serializer = (obj: unknown) => (obj === add ? "tool:add" : null);
async function bridgedInterpreter(how: "module" | "globals"): Promise<PyodideAPI> {
  const py = await loadPyodide({ _makeSnapshot: true });
  if (how === "module") {
    py.registerJsModule("host", { add });
    py.runPython("from host import add");
  } else py.globals.set("add", add);
  py.runPython("total = add(1, 2)");
  return py;
}
function snapshotError(py: PyodideAPI, options?: { serializer: typeof serializer }): string {
  try {
    py.makeMemorySnapshot(options);
    return "";
  } catch (error) {
    return (error as Error).message;
  }
}
const viaModule = await bridgedInterpreter("module");
const viaGlobals = await bridgedInterpreter("globals");
const withoutSerializer = snapshotError(viaModule);
const viaGlobalsWithSerializer = snapshotError(viaGlobals, { serializer });
const childAdd = (a: number, b: number) => 10 * (a + b); // a different function: shows which is bound
const rebound = await loadPyodide({
  _loadSnapshot: viaModule.makeMemorySnapshot({ serializer }),
  _snapshotDeserializer: (token: unknown) => (token === "tool:add" ? childAdd : null),
});
const bridge = {
  withoutSerializer,
  viaGlobalsWithSerializer,
  totalInChild: rebound.runPython("total") as number,
  callInChild: rebound.runPython("add(1, 2)") as number,
};

/** The snapshot handed to a worker thread (a copy, as a message would carry it) and restored there. */
async function restoreInWorker(bytes: Uint8Array): Promise<{ ms: number; squares: string }> {
  const entry = createRequire(import.meta.url).resolve("pyodide/pyodide.mjs");
  // An eval'd worker has no file of its own, so Pyodide is told where its files are.
  const indexURL = `${dirname(entry)}/`;
  const source = `
const { workerData, parentPort } = require("node:worker_threads");
(async () => {
  const started = performance.now();
  const { loadPyodide } = await import(${JSON.stringify(pathToFileURL(entry).href)});
  const py = await loadPyodide({ indexURL: ${JSON.stringify(indexURL)}, _loadSnapshot: workerData });
  parentPort.postMessage({ ms: performance.now() - started, squares: py.runPython("str(squares)") });
})();`;
  const worker = new Worker(source, { eval: true, workerData: bytes });
  try {
    return await new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
  } finally {
    await worker.terminate();
  }
}
const inWorker = await restoreInWorker(snapshot.value);
figures.restoreInWorkerMs = inWorker.ms;

console.log(
  JSON.stringify({
    pyodide: plain.value.version,
    figures,
    parentBefore,
    childAfterRestore,
    diverged,
    bridge,
    workerSquares: inWorker.squares,
  }),
);
