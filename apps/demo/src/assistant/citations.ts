import type { Citation } from "./assistant-events.js";

/** A page path as the docs shell prints it: from the root, `.md`/`.mdx`. */
const PAGE_PATH = /(?:^|[\s("'`[])(\/?[\p{L}\p{N}_.\-/]+\.mdx?)\b/gu;

/**
 * The answer text and the cited pages of a final answer. The instructions ask for
 * `{ answer, sources }`; a model that answers with plain text instead has the page paths in its
 * text picked up as its sources.
 */
export function readFinalAnswer(output: unknown): { answer: string; sources: string[] } {
  if (output && typeof output === "object" && !Array.isArray(output)) {
    const record = output as Record<string, unknown>;
    const answer = typeof record.answer === "string" ? record.answer : JSON.stringify(output);
    const sources = Array.isArray(record.sources)
      ? record.sources.filter((s): s is string => typeof s === "string")
      : pathsIn(answer);
    return { answer, sources: unique(sources.map(normalizePagePath)) };
  }
  const answer = typeof output === "string" ? output : output === undefined ? "" : JSON.stringify(output);
  return { answer, sources: unique(pathsIn(answer).map(normalizePagePath)) };
}

function pathsIn(text: string): string[] {
  return [...text.matchAll(PAGE_PATH)].map((m) => m[1]!);
}

/** `/guides/x.mdx` whether the model wrote `guides/x.mdx`, `./guides/x.mdx` or `/guides/x.mdx`. */
export function normalizePagePath(path: string): string {
  const trimmed = path.trim().replace(/^\.\//, "");
  return trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

/**
 * Marks each source verified when the docs tools showed that path during the run (in a
 * command's output, or as the file a successful command read), so a citation the model made up
 * is visible as such.
 */
export function verifyCitations(sources: readonly string[], seen: ReadonlySet<string>): Citation[] {
  return sources.map((path) => ({ path, verified: seen.has(path) }));
}

/** Every page path in a docs command and its output, for `verifyCitations`. */
export function pagePathsOf(command: string, stdout: string, exitCode: number): string[] {
  const fromOutput = pathsIn(stdout).filter((p) => p.startsWith("/"));
  // `cat /a.mdx` that succeeded read that page even though its output doesn't name it.
  const fromCommand = exitCode === 0 ? pathsIn(command).filter((p) => p.startsWith("/")) : [];
  return [...fromOutput, ...fromCommand];
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
