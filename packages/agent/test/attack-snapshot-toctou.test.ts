import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExecutorFactory } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { CodeAgent } from "../src/agents/index.js";
import { signContinuation } from "../src/continuation/continuation-codec.js";
import { ScriptedModel } from "../src/models/index.js";

// Found by an outside review: CodeAgent.resume hashed the snapshot file by path, then handed the
// path to factory.restore, which opened it again, so a pipe (or a file swapped in a folder others
// could write) gave the signed bytes to the check and other bytes to the restore. Now the file is
// opened once, must be a regular file in a private folder, and is restored through that descriptor.
describe("attack: micro-VM snapshot checked, then read again", () => {
  it("restore must read the very bytes whose SHA-256 the continuation signed", async () => {
    const key = Buffer.alloc(32, 9);
    const dir = mkdtempSync(join(tmpdir(), "atk-snap-"));
    const good = Buffer.from("the snapshot the agent saved");
    const evil = Buffer.from("a snapshot the attacker made");
    const path = join(dir, "run-step-1.snapshot");
    expect(spawnSync("mkfifo", [path]).status).toBe(0);
    // The attacker: the first reader (the hash check) gets the signed bytes, the second the others.
    // (another process: the attacker is another local user)
    const attacker = spawn(
      "sh",
      [
        "-c",
        `printf '%s' "$1" > "$3"; sleep 0.5; printf '%s' "$2" > "$3"`,
        "sh",
        good.toString(),
        evil.toString(),
        path,
      ],
      { stdio: "ignore" },
    );
    const sha256 = createHash("sha256").update(good).digest("hex");
    let restored: Buffer | undefined;
    const factory: ExecutorFactory = {
      capabilities: { language: "javascript", snapshots: true } as ExecutorFactory["capabilities"],
      create: () => Promise.reject(new Error("not used")),
      restore: async (p: string) => {
        restored = readFileSync(p); // what a real restore (Machine.restore) would load
        throw new Error("stop here");
      },
    };
    const agent = new CodeAgent({
      model: new ScriptedModel([]),
      tools: [],
      executor: factory,
      resumable: { key },
    } as ConstructorParameters<typeof CodeAgent>[0]);
    const continuation = signContinuation(
      {
        kind: "code-agent",
        id: "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b",
        // The SHA-256 of this agent's tools ([]): the continuation fits the agent.
        tools: createHash("sha256").update("[]").digest("hex"),
        runId: "r1",
        task: "t",
        language: "javascript",
        memory: { version: 1, steps: [] },
        replay: [],
        snapshot: { path, sha256 },
        pending: {
          step: 1,
          modelOutput: "",
          code: "",
          journal: { toolCalls: [] },
          usage: { inputTokens: 0, outputTokens: 0 },
          startedAt: 0,
          request: { toolCallId: "c1", toolName: "x", input: {} },
        },
        maxSteps: 5,
        stepCount: 0,
        usage: { inputTokens: 0, outputTokens: 0 },
        suspendedAt: new Date().toISOString(),
      },
      key,
    );
    const outcome = await agent.resume(continuation, { decision: { approved: true } }).then(
      (r) => r,
      (e: unknown) => e,
    );
    attacker.kill();
    // The pipe is refused before anything reads it twice; the restore never runs.
    expect((outcome as Error).message).toBe(
      `the run's snapshot ${path} cannot be read: it is not a regular file`,
    );
    expect(restored).toBeUndefined();
  }, 20_000);
});
