/**
 * Turns what a failed server child printed into a message that says what went wrong and what to
 * do. Kept apart from the process handling so each known failure text is testable on its own.
 */
export interface StartFailureContext {
  dataDir: string;
  url: string;
  port: number;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

export type StartFailureKind = "glibc" | "binding-missing" | "port-in-use" | "other";

export function classifyStartFailure(output: string): StartFailureKind {
  if (/GLIBC_[\d.]+['`’]? not found/i.test(output)) return "glibc";
  if (/Cannot find module ['"]chromadb-js-bindings/i.test(output)) return "binding-missing";
  // The 1.0.0 server prints "Address 127.0.0.1:N is not available" and then keeps running.
  if (/address already in use|AddrInUse|os error 98|Address \S+ is not available/i.test(output))
    return "port-in-use";
  return "other";
}

export function describeStartFailure(context: StartFailureContext): string {
  const { dataDir, url, port, exitCode, signal, output } = context;
  const how = signal ? `was killed by ${signal}` : `exited with code ${exitCode}`;
  const tail = lastLines(output, 15);
  const shown = tail ? `\nLast server output:\n${tail}` : "";
  switch (classifyStartFailure(output)) {
    case "glibc": {
      const needed = /GLIBC_([\d.]+)/.exec(output)?.[1] ?? "2.38";
      return (
        `The Chroma server binary needs glibc ${needed}, but this system has glibc ${systemGlibc()}. ` +
        "Builds of chromadb-js-bindings-linux-x64-gnu newer than 1.0.5 need glibc 2.38+: pin it with " +
        '`"overrides": { "chromadb-js-bindings-linux-x64-gnu": "1.0.5" }` (pnpm-workspace.yaml) and reinstall, ' +
        `or run on a system with glibc 2.38+, or point at an existing server with a URL. Data dir: ${dataDir}, port ${port}.${shown}`
      );
    }
    case "binding-missing":
      return (
        "The Chroma server binary (package chromadb-js-bindings-<platform>) is not installed. Install chromadb " +
        `with its optional dependencies (pnpm install), or point at an existing server with a URL. Data dir: ${dataDir}, port ${port}.${shown}`
      );
    case "port-in-use":
      return `Port ${port} is already in use, so the Chroma server for ${dataDir} could not listen on ${url}. Choose another port or leave it unset to pick a free one.${shown}`;
    default:
      return `The Chroma server for data dir ${dataDir} ${how} before answering on ${url}.${shown}`;
  }
}

/** The server process ran but never answered its heartbeat in time (it has been stopped). */
export function describeStartTimeout(context: {
  dataDir: string;
  url: string;
  timeoutMs: number;
  output: string;
}): string {
  const tail = lastLines(context.output, 15);
  return (
    `The Chroma server for data dir ${context.dataDir} did not answer ${context.url}/api/v2/heartbeat ` +
    `within ${context.timeoutMs} ms, so it was stopped. On a slow or busy machine pass a larger startTimeoutMs.` +
    (tail ? `\nLast server output:\n${tail}` : "")
  );
}

function lastLines(text: string, count: number): string {
  return text.trim().split("\n").slice(-count).join("\n");
}

function systemGlibc(): string {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)
    ?.header;
  return header?.glibcVersionRuntime ?? "unknown";
}
