import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { guestHarness } from "./guest-repl.js";

// The guest harness is a Python file (guest-harness.py): the host's CPython runs it here the way
// the guest's does (`python3 -I -S -u -c <its text>`), speaking its JSON lines, so the protocol,
// the notebook state, the output bound, tools and time limits are checked without booting a VM.
const hasPython3 = spawnSync("python3", ["--version"]).status === 0;

type Line = Record<string, unknown>;

class Harness {
  private readonly lines: Line[] = [];
  private waiting: ((line: Line) => void) | undefined;
  readonly child: ChildProcessWithoutNullStreams;

  constructor() {
    this.child = spawn("python3", ["-I", "-S", "-u", "-c", guestHarness()]);
    createInterface({ input: this.child.stdout }).on("line", (text) => {
      const line = JSON.parse(text) as Line;
      const waiting = this.waiting;
      this.waiting = undefined;
      if (waiting) waiting(line);
      else this.lines.push(line);
    });
  }

  next(): Promise<Line> {
    const line = this.lines.shift();
    if (line) return Promise.resolve(line);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  send(message: Line): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  async request(message: Line): Promise<Line> {
    this.send(message);
    return this.next();
  }

  run(code: string, more: Line = {}): Promise<Line> {
    return this.request({ op: "run", code, timeoutMs: 5_000, maxOutputChars: 20_000, ...more });
  }
}

let harness: Harness | undefined;
afterEach(() => {
  harness?.child.kill("SIGKILL");
  harness = undefined;
});

async function started(): Promise<Harness> {
  harness = new Harness();
  expect(await harness.next()).toMatchObject({ op: "ready" });
  return harness;
}

// Under CI the host has python3 (Debian's), and its absence must fail rather than skip.
describe.skipIf(!hasPython3 && process.env.CI !== "true")(
  "the micro-VM guest harness under the host's CPython",
  () => {
    it("keeps state across steps, returns the last value, and reports errors with their line", async () => {
      const h = await started();
      expect(await h.run("x = 41\ndef bump(n):\n    return n + 1")).toMatchObject({
        op: "done",
        logs: "",
        cut: 0,
      });
      expect(await h.run("bump(x)")).toMatchObject({ op: "done", final: false, value: 42 });
      expect(await h.run("print('hi', 1)\nfinal_answer('done')\nprint('after')")).toMatchObject({
        final: true,
        value: "done",
        logs: "hi 1\n",
      });
      expect((await h.run("a = 1\nraise ValueError('boom')")).error).toEqual({
        kind: "runtime",
        name: "ValueError",
        message: "boom",
        line: 2,
      });
      expect((await h.run("x = = 1")).error).toMatchObject({ kind: "syntax", line: 1 });
      expect(await h.run("{1, 2}")).toMatchObject({ value: "{1, 2}", repr: true });
      expect(await h.request({ op: "reset" })).toEqual({ op: "ok" });
      expect((await h.run("x")).error).toMatchObject({ kind: "runtime", name: "NameError" });
    });

    it("keeps the first and last halves of maxOutputChars and counts what it dropped", async () => {
      const h = await started();
      const done = await h.run("for i in range(100):\n    print(i)", { maxOutputChars: 10 });
      const printed = Array.from({ length: 100 }, (_, i) => `${i}\n`).join("");
      expect(done.logs).toBe(printed.slice(0, 5) + printed.slice(-5));
      expect(done.cut).toBe(printed.length - 10);
    });

    it("calls host tools over its channel, and raises their errors as ToolError", async () => {
      const h = await started();
      expect(await h.request({ op: "tools", names: ["add", "fail"] })).toEqual({ op: "ok" });
      h.send({ op: "run", code: "add(2, b=3)", timeoutMs: 5_000, maxOutputChars: 100 });
      expect(await h.next()).toEqual({ op: "tool", id: 1, name: "add", args: [2], kwargs: { b: 3 } });
      h.send({ op: "tool-result", id: 1, ok: true, json: "5" });
      expect(await h.next()).toMatchObject({ op: "done", value: 5 });
      h.send({
        op: "run",
        code: "try:\n    fail()\nexcept ToolError as e:\n    caught = str(e)\ncaught",
        timeoutMs: 5_000,
      });
      expect(await h.next()).toMatchObject({ op: "tool", name: "fail" });
      h.send({ op: "tool-result", id: 2, ok: false, name: "ToolError", message: "nope" });
      expect(await h.next()).toMatchObject({ op: "done", value: "nope" });
    });

    it("takes variables from the host as JSON", async () => {
      const h = await started();
      expect(await h.request({ op: "vars", json: '{"greeting": "hi", "data": {"n": 2}}' })).toEqual({
        op: "ok",
      });
      expect(await h.run('greeting + str(data["n"])')).toMatchObject({ value: "hi2" });
    });

    it("ends a step at its time limit (SIGALRM) and an aborted one on SIGINT, and carries on", async () => {
      const h = await started();
      await h.run("kept = 7");
      expect((await h.run("while True:\n    pass", { timeoutMs: 200 })).error).toMatchObject({
        kind: "timeout",
      });
      h.send({ op: "run", code: "while True:\n    pass", timeoutMs: 60_000 });
      setTimeout(() => h.child.kill("SIGINT"), 200);
      expect((await h.next()).error).toMatchObject({ kind: "aborted", name: "KeyboardInterrupt" });
      expect(await h.run("kept * 6")).toMatchObject({ value: 42 });
    });

    it("keeps its channel from guest code that writes to fd 1 or reads fd 0", async () => {
      const h = await started();
      const done = await h.run("import os\nos.write(1, b'not the protocol\\n')\nos.read(0, 10)");
      expect(done).toMatchObject({ op: "done", value: "b''" });
    });
  },
);
