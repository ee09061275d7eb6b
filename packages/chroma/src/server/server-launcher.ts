import { PARENT_WATCH_INTERVAL_MS } from "../tuning.js";

/**
 * The program the server child runs (`node -e LAUNCHER cli parentPid -- run --path ...`).
 * chromadb's CLI calls into the native server, which blocks the child's main thread for good, so
 * the child can't notice through its event loop that its parent died. A worker thread watches
 * the parent instead and sends the child SIGTERM (a clean Chroma shutdown) once the parent is
 * gone — even after SIGKILL of the parent, no server is left orphaned holding the data dir.
 */
export const SERVER_LAUNCHER_SOURCE = `
const { Worker } = require("node:worker_threads");
const { pathToFileURL } = require("node:url");
const [cli, parentPid, ...args] = process.argv.slice(1);
new Worker(
  \`const { workerData } = require("node:worker_threads");
  const parent = Number(workerData.parentPid);
  setInterval(() => {
    let alive = process.ppid === parent;
    if (alive) { try { process.kill(parent, 0); } catch { alive = false; } }
    if (!alive) process.kill(process.pid, "SIGTERM");
  }, ${PARENT_WATCH_INTERVAL_MS});\`,
  { eval: true, workerData: { parentPid } },
);
process.argv = [process.argv[0], cli, ...args];
import(pathToFileURL(cli).href);
`;
