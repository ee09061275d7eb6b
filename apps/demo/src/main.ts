/**
 * `npm run demo`: the composed assistant on the command line (src/cli/run-demo.ts). Ctrl-C aborts
 * the question in flight; everything started (the Chroma server, sandboxes, MCP servers) is
 * closed before the process exits, and a second Ctrl-C exits at once (the Chroma and MCP
 * packages still stop their children on exit).
 */
import { runDemo } from "./cli/run-demo.js";

const controller = new AbortController();
// Under `npm run demo` one Ctrl-C arrives twice: from the terminal (to the whole foreground
// process group) and again from npm, which forwards it to its child. A repeat within this window
// is that same Ctrl-C, not the second one that exits at once.
const SAME_SIGNAL_MS = 500;
let firstSignalAt = 0;
const onSignal = (signal: NodeJS.Signals) => {
  if (controller.signal.aborted) {
    if (Date.now() - firstSignalAt < SAME_SIGNAL_MS) return;
    process.exit(130);
  }
  firstSignalAt = Date.now();
  controller.abort(new Error(`interrupted by ${signal}`));
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

const code = await runDemo(process.argv.slice(2), {
  out: process.stdout,
  err: process.stderr,
  env: process.env,
  signal: controller.signal,
});
process.exit(code);
