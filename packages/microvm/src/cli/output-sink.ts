import type { CliOutput } from "@atrium/kit/cli";

type Stream = CliOutput;
interface WritableLike {
  write(data: string | Uint8Array): boolean;
  once(event: string, listener: (...args: unknown[]) => void): unknown;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
}

function writable(stream: Stream): WritableLike | undefined {
  const candidate = stream as Partial<WritableLike>;
  return typeof candidate.once === "function" && typeof candidate.on === "function"
    ? (candidate as WritableLike)
    : undefined;
}

/**
 * Guest output on its way to one of the CLI's streams. `write` returns a promise while the
 * stream's buffer is full (the caller stops reading the guest until it settles), so a guest
 * that prints faster than our reader reads never piles up in this process. A reader that went
 * away (EPIPE) is reported once through `onBroken` instead of crashing the process; later
 * writes are dropped.
 */
export class OutputSink {
  broken: Error | undefined;
  private readonly onError: (error: unknown) => void;

  constructor(
    private readonly stream: Stream,
    onBroken: (error: Error) => void,
  ) {
    this.onError = (error) => {
      if (this.broken) return;
      this.broken = error instanceof Error ? error : new Error(String(error));
      onBroken(this.broken);
    };
    writable(stream)?.on("error", this.onError);
  }

  write(chunk: Uint8Array): Promise<void> | undefined {
    if (this.broken) return undefined;
    const target = writable(this.stream);
    if (!target) {
      this.stream.write(chunk);
      return undefined;
    }
    if (target.write(chunk)) return undefined;
    return new Promise<void>((resolve) => {
      const settle = () => {
        target.off("drain", settle);
        target.off("close", settle);
        target.off("error", settle);
        resolve();
      };
      target.once("drain", settle);
      target.once("close", settle);
      target.once("error", settle);
    });
  }

  /**
   * Stops listening for errors, unless the stream broke: then a listener stays, since a later
   * write to it (an error message) would emit another EPIPE that nobody handles.
   */
  close(): void {
    if (!this.broken) writable(this.stream)?.off("error", this.onError);
  }
}

/** "stdout was closed (EPIPE)": what the CLI says when its reader went away. */
export function brokenStreamMessage(name: string, error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return `${name} was closed${code ? ` (${code})` : ""}`;
}
