import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchOsSandbox, OS_SANDBOX_INSTALL_HINT, OsSandboxUnavailableError } from "./launch-os-sandbox.js";

/** Whether the OS sandbox starts on this host, and if not, why and what to do. */
export type OsSandboxReport = { ok: true; startMs: number } | { ok: false; reason: string };

const PROBE_TIMEOUT_MS = 15_000;
let probed: Promise<OsSandboxReport> | undefined;

/**
 * Starts the sandbox once with a program that prints a word and exits, so support is known by
 * trying rather than by finding a binary (bubblewrap may be installed where namespaces are off,
 * as in many containers). Cached for the process.
 */
export function probeOsSandbox(): Promise<OsSandboxReport> {
  probed ??= runProbe();
  return probed;
}

async function runProbe(): Promise<OsSandboxReport> {
  const dir = mkdtempSync(join(tmpdir(), "atrium-probe-"));
  writeFileSync(join(dir, "probe.mjs"), 'process.stdout.write("sandbox-ok");\n');
  chmodSync(join(dir, "probe.mjs"), 0o644);
  chmodSync(dir, 0o755);
  const started = performance.now();
  try {
    const sandbox = launchOsSandbox({ dir, main: "probe.mjs" });
    const { child } = sandbox;
    let out = "";
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (text: string) => {
      out += text;
    });
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill("SIGKILL"), PROBE_TIMEOUT_MS);
      child.on("error", () => undefined);
      child.on("close", (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    if (code === 0 && out === "sandbox-ok") return { ok: true, startMs: performance.now() - started };
    const said = sandbox.stderrTail() || `exit code ${String(code)}`;
    return { ok: false, reason: `the OS sandbox did not start (${said}); ${OS_SANDBOX_INSTALL_HINT}` };
  } catch (error) {
    if (error instanceof OsSandboxUnavailableError) return { ok: false, reason: error.message };
    throw error;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
