/**
 * `npm run demo`: the composed assistant on the command line (src/cli/run-demo.ts). Ctrl-C aborts
 * the question in flight; everything started (the Chroma server, sandboxes, MCP servers) is
 * closed before the process exits, and a second Ctrl-C exits at once (the Chroma and MCP
 * packages still stop their children on exit).
 */
import { runDemo } from "./cli/run-demo.js";

const controller = new AbortController();
const onSignal = (signal: NodeJS.Signals) => {
  if (controller.signal.aborted) process.exit(130);
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
