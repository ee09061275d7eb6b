// No orphans: close() reaps a server that ignores EOF and SIGTERM, a host that dies without
// calling close() takes its servers along, and a server dying mid-call is an observation.
import { spawn } from "node:child_process";
import { ToolError } from "@atrium/spec";
import { afterAll, describe, expect, it } from "vitest";
import { connectMcpServers } from "../src/index.js";
import { bundledFixture, fixture, fixtureServer, isAlive, removeBundles, waitForExit } from "./servers.js";

const signal = () => new AbortController().signal;

afterAll(removeBundles);

describe("stdio child processes", () => {
  it("close() escalates to SIGKILL for a server that ignores EOF and SIGTERM", async () => {
    const connection = await connectMcpServers({ stubborn: fixtureServer("stubborn.mjs") });
    const pid = connection.clients.stubborn!.pid!;
    const ping = connection.tools.find((tool) => tool.name === "ping")!;
    expect(await ping.execute({}, { signal: signal() })).toBe("pong");
    await connection.close();
    expect(isAlive(pid)).toBe(false);
  });

  it("a server that crashes mid-call gives a ToolError with its exit code and stderr", async () => {
    const connection = await connectMcpServers({ stubborn: fixtureServer("stubborn.mjs") });
    try {
      const crash = connection.tools.find((tool) => tool.name === "crash")!;
      const error = await crash.execute({}, { signal: signal() }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ToolError);
      expect((error as ToolError).message).toBe(
        'MCP server "stubborn" closed the connection during tool "crash" (the process exited with code 7; stderr: panic: index out of range)',
      );
      const ping = connection.tools.find((tool) => tool.name === "ping")!;
      const later = await ping.execute({}, { signal: signal() }).catch((caught: unknown) => caught);
      expect(later).toBeInstanceOf(ToolError);
      expect((later as ToolError).message).toBe(
        'MCP server "stubborn" is no longer running, so tool "ping" cannot run (the process exited with code 7; stderr: panic: index out of range)',
      );
    } finally {
      await connection.close();
    }
  });

  it("a server that answers with progress and exits at once still delivers both", async () => {
    const connection = await connectMcpServers({ oneShot: fixtureServer("answers-and-exits.mjs") });
    try {
      const progress: unknown[] = [];
      const once = connection.tools.find((tool) => tool.name === "once")!;
      expect(
        await once.execute({}, { signal: signal(), onProgress: (update) => progress.push(update) }),
      ).toBe("done");
      expect(progress).toEqual([{ progress: 1, total: 1 }]);
    } finally {
      await connection.close();
    }
  });

  it.concurrent.each(["exit", "throw", "signal"])(
    "a host that ends by %s leaves no server behind",
    async (how) => {
      const host = spawn(process.execPath, [bundledFixture("host-exits.ts"), fixture("stubborn.mjs"), how], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      host.stdout!.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
      const code = await new Promise<number | null>((resolve) =>
        host.once("exit", (exitCode) => resolve(exitCode)),
      );
      const report = JSON.parse(out.trim()) as { pid: number; errors: string[] };
      expect(report.errors).toEqual([]);
      expect(report.pid).toBeGreaterThan(0);
      expect(code).toBe(how === "exit" ? 0 : how === "throw" ? 1 : null);
      expect(await waitForExit(report.pid)).toBe(true);
    },
  );
});
