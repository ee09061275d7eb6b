// What the host does with a sandbox that no longer follows the protocol: the guest is assumed
// to have taken over the sandboxed process, so a stand-in program plays it, speaking raw
// frames on its stdout. Each case checks that the host refuses (the channel closes, the
// sandbox is killed, the request fails with why) and stays healthy, instead of crashing,
// stalling or waiting forever.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SandboxExitError } from "@atrium/kit";
import { afterAll, describe, expect, it } from "vitest";
import { PythonProcessClient } from "../src/sandbox/python-process-client.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A stand-in sandbox: `body` runs after the boot call is answered; `frame(json)` writes one frame. */
function standIn(body: string): string {
  const dir = mkdtempSync(join(tmpdir(), "atrium-hostile-"));
  dirs.push(dir);
  chmodSync(dir, 0o755);
  const program = `
const frame = (value) => {
  const json = Buffer.from(typeof value === "string" ? value : JSON.stringify(value));
  const head = Buffer.alloc(5);
  head.writeUInt32BE(json.length + 1, 0);
  process.stdout.write(Buffer.concat([head, json]));
};
let booted = false;
process.stdin.on("data", () => {
  if (booted) return;
  booted = true;
  frame({ t: "reply", id: 1, ok: true });
  ${body}
});
setInterval(() => {}, 1 << 30);
`;
  writeFileSync(join(dir, "python-sandbox.mjs"), program, { mode: 0o644 });
  return dir;
}

async function expectExit(promise: Promise<unknown>, message: string): Promise<void> {
  const error = await promise.catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(SandboxExitError);
  expect((error as Error).message).toBe(`the Python sandbox worker exited: ${message}`);
}

const run = { type: "run" as const, runId: 1, code: "1", deadline: Date.now() + 60_000 };

describe("a sandbox that breaks the protocol", () => {
  it("is cut off when it sends JSON nested a million deep, before the host parses it", async () => {
    const client = await PythonProcessClient.spawn({
      programDir: standIn(
        `process.stdin.on("data", () => frame("[".repeat(1_000_000) + "]".repeat(1_000_000)));`,
      ),
    });
    await expectExit(client.request(run), "its channel broke: a frame's JSON nests deeper than 64 levels");
    expect(client.healthy).toBe(false);
  }, 30_000);

  it("is cut off when it answers a call that was never made", async () => {
    const client = await PythonProcessClient.spawn({
      programDir: standIn(
        `process.stdin.on("data", () => { for (let id = 100; id < 200; id++) frame({ t: "reply", id, ok: true }); });`,
      ),
    });
    await expectExit(client.request(run), "it answered call 100, which is not waiting");
  }, 30_000);

  it("is cut off when it calls a tool while no step runs", async () => {
    const client = await PythonProcessClient.spawn({
      programDir: standIn(
        `setTimeout(() => frame({ t: "event", name: "tool-call", payload: { type: "tool-call", runId: 1, callId: 1, name: "x", json: "{}" } }), 50);`,
      ),
    });
    let calls = 0;
    client.onToolCall = () => calls++;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(client.healthy).toBe(false);
    expect(calls).toBe(0);
    await expectExit(
      client.request({ type: "reset" }),
      "the sandbox called a tool while no step was running",
    );
  }, 30_000);

  it("is cut off when it sends a snapshot after it booted", async () => {
    const client = await PythonProcessClient.spawn({
      programDir: standIn(
        `setTimeout(() => { const b = Buffer.from([0,0,0,5,1,1,2,3,4]); process.stdout.write(b); frame({ t: "event", name: "snapshot", attached: true }); }, 50);`,
      ),
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    await expectExit(
      client.request({ type: "reset" }),
      "its channel broke: a bytes frame of 4 bytes was announced; none are accepted now",
    );
  }, 30_000);

  it("is given up on when it never answers a request that is not a run", async () => {
    const client = await PythonProcessClient.spawn({ programDir: standIn(""), requestTimeoutMs: 300 });
    const started = performance.now();
    await expectExit(
      client.request({ type: "set-variables", entries: [] }),
      "it did not answer request within 300 ms",
    );
    expect(performance.now() - started).toBeLessThan(5_000);
  }, 30_000);
});
