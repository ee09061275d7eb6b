// `await using` frees each MCP resource at the end of its block, and a script that forgets
// close() still exits by itself once its work is done, taking its server along.
import { spawn } from "node:child_process";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { connectMcpServers, McpClient, serveMcp, serveMcpHttp } from "../src/index.js";
import { sampleTools } from "./fixtures/sample-tools.js";
import {
  bundledFixture,
  everythingEntry,
  everythingStdio,
  isAlive,
  removeBundles,
  waitForExit,
} from "./servers.js";

afterAll(removeBundles);

describe("await using", () => {
  it("disposes a connection: its server process is gone at the end of the block", async () => {
    let pid: number | undefined;
    {
      await using connection = await connectMcpServers({ everything: everythingStdio });
      pid = connection.clients.everything!.pid;
      expect(isAlive(pid!)).toBe(true);
    }
    expect(isAlive(pid!)).toBe(false);
  });

  it("disposes one client", async () => {
    let pid: number | undefined;
    {
      await using client = await McpClient.connect("everything", everythingStdio);
      pid = client.pid;
      expect(isAlive(pid!)).toBe(true);
    }
    expect(isAlive(pid!)).toBe(false);
  });

  it("disposes a server served over stdio", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let closed: Promise<void> | undefined;
    {
      await using served = await serveMcp(
        { name: "sample", version: "1.0.0", tools: sampleTools },
        { stdin, stdout },
      );
      closed = served.closed;
    }
    expect(
      await Promise.race([closed, new Promise((resolve) => setTimeout(() => resolve("open"), 1_000))]),
    ).toBe(undefined);
  });

  it("disposes a server served over HTTP: its port refuses connections", async () => {
    let url: string;
    {
      await using served = await serveMcpHttp({
        name: "sample",
        version: "1.0.0",
        tools: sampleTools,
        health: () => ({ ok: true }),
      });
      url = served.url;
      expect((await fetch(url.replace(/\/mcp$/, "/health"))).status).toBe(200);
    }
    const error = await fetch(url).catch((caught: unknown) => caught);
    expect(((error as Error).cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
  });
});

/** Runs the forgets-close fixture against `target`; "hung" when it has not exited after 15 s. */
async function forgetfulScript(target: string[]) {
  const script = spawn(process.execPath, [bundledFixture("forgets-close.ts"), ...target], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  script.stdout!.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  script.stderr!.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const code = await new Promise<number | null | "hung">((resolve) => {
    const timer = setTimeout(() => {
      script.kill("SIGKILL");
      resolve("hung");
    }, 15_000);
    script.once("exit", (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  return {
    code,
    err,
    report: out ? (JSON.parse(out.trim()) as { pid: number | null; said: string }) : undefined,
  };
}

describe("a forgotten close()", () => {
  it("does not keep a script alive on stdio: it exits by itself and its server is gone", async () => {
    const { code, err, report } = await forgetfulScript([process.execPath, everythingEntry, "stdio"]);
    expect({ code, err, said: report?.said }).toEqual({ code: 0, err: "", said: "Echo: hi" });
    expect(await waitForExit(report!.pid!)).toBe(true);
  });

  it("does not keep a script alive on streamable HTTP (its standing GET stream is unref'd)", async () => {
    await using served = await serveMcpHttp({ name: "sample", version: "1.0.0", tools: sampleTools });
    const { code, err, report } = await forgetfulScript([served.url]);
    expect({ code, err, report }).toEqual({ code: 0, err: "", report: { pid: null, said: "hi" } });
  });
});
