import type { ImagePart } from "@atrium/spec";
import { AbortError, richToolResult, type Tool } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import {
  runSandboxToolCall,
  type SandboxToolCall,
  type ToolCallEvent,
} from "../src/tool-call/sandbox-tool-call.js";
import { describeThrown } from "../src/values/describe-thrown.js";
import { toJsonText } from "../src/values/sandbox-json.js";

const IMAGE: ImagePart = { type: "image", image: "aGk=", mediaType: "image/png" };

function tool(execute: Tool["execute"], validate?: Tool["validate"]): Tool {
  return {
    name: "probe",
    description: "a tool under test",
    inputSchema: { type: "object" },
    execute,
    ...(validate ? { validate } : {}),
  };
}

function call(overrides: Partial<SandboxToolCall> & Pick<SandboxToolCall, "tool">): SandboxToolCall {
  return {
    input: { n: 2 },
    id: "call_1",
    signal: new AbortController().signal,
    images: [],
    maxJsonChars: 100,
    limitName: "maxTransferChars",
    ...overrides,
  };
}

/** The events without their timings, which vary. */
function withoutTimes(events: ToolCallEvent[]): unknown[] {
  return events.map((event) => {
    if (event.type !== "tool-result") return event;
    const { durationMs, ...rest } = event;
    expect(durationMs).toBeGreaterThanOrEqual(0);
    return rest;
  });
}

describe("runSandboxToolCall", () => {
  it("validates, executes with the call's id and signal, and answers the value as JSON", async () => {
    const signal = new AbortController().signal;
    const seen: unknown[] = [];
    const outcome = await runSandboxToolCall(
      call({
        signal,
        tool: tool(
          async (input, context) => {
            seen.push(input, context.toolCallId, context.signal === signal);
            return { doubled: (input as { n: number }).n * 2, at: new Date(0) };
          },
          (input) => ({ ok: true, value: { n: Number((input as { n: string }).n) } }),
        ),
        input: { n: "21" },
      }),
    );
    expect(seen).toEqual([{ n: 21 }, "call_1", true]);
    expect(outcome).toEqual({ ok: true, json: '{"doubled":42,"at":"1970-01-01T00:00:00.000Z"}' });
  });

  it("reports call, progress and result events, images included, and keeps the images", async () => {
    const events: ToolCallEvent[] = [];
    const images: ImagePart[] = [];
    const outcome = await runSandboxToolCall(
      call({
        images,
        onToolCall: (event) => events.push(event),
        tool: tool(async (_input, context) => {
          context.onProgress?.({ progress: 1, total: 2 });
          return richToolResult("drawn", [IMAGE]);
        }),
      }),
    );
    expect(outcome).toEqual({ ok: true, json: '"drawn"' });
    expect(images).toEqual([IMAGE]);
    expect(withoutTimes(events)).toEqual([
      { type: "tool-call", id: "call_1", name: "probe", input: { n: 2 } },
      { type: "tool-progress", id: "call_1", name: "probe", progress: { progress: 1, total: 2 } },
      { type: "tool-result", id: "call_1", name: "probe", output: "drawn", images: [IMAGE] },
    ]);
  });

  it("drops the images of a call whose run has ended", async () => {
    const controller = new AbortController();
    const images: ImagePart[] = [];
    const outcome = await runSandboxToolCall(
      call({
        signal: controller.signal,
        images,
        tool: tool(async () => {
          controller.abort();
          return richToolResult(1, [IMAGE]);
        }),
      }),
    );
    expect(outcome).toEqual({ ok: true, json: "1" });
    expect(images).toEqual([]);
  });

  it("answers undefined for no value, and BigInt as a decimal string", async () => {
    expect(await runSandboxToolCall(call({ tool: tool(async () => undefined) }))).toEqual({
      ok: true,
      json: undefined,
    });
    expect(await runSandboxToolCall(call({ tool: tool(async () => ({ big: 2n ** 70n })) }))).toEqual({
      ok: true,
      json: '{"big":"1180591620717411303424"}',
    });
  });

  it("fails a value longer than the sandbox takes, naming the limit", async () => {
    const events: ToolCallEvent[] = [];
    const outcome = await runSandboxToolCall(
      call({ tool: tool(async () => "x".repeat(200)), onToolCall: (event) => events.push(event) }),
    );
    const message =
      'Tool "probe" failed: tool "probe" returned 202 characters of JSON; the sandbox accepts at most 100 (maxTransferChars)';
    expect(outcome).toEqual({ ok: false, name: "ToolError", message });
    expect(withoutTimes(events).at(-1)).toEqual({
      type: "tool-result",
      id: "call_1",
      name: "probe",
      output: undefined,
      error: message,
    });
  });

  it("fails a value that is no JSON (a cycle)", async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const outcome = await runSandboxToolCall(call({ tool: tool(async () => cyclic) }));
    expect(outcome).toMatchObject({ ok: false, name: "ToolError" });
    expect((outcome as { message: string }).message).toMatch(
      /^Tool "probe" failed: tool "probe" returned data that cannot enter the sandbox: Converting circular structure to JSON/,
    );
  });

  it("answers a validation failure as a ValidationError naming the field, without executing", async () => {
    let executed = false;
    const outcome = await runSandboxToolCall(
      call({
        tool: tool(
          async () => {
            executed = true;
          },
          () => ({ ok: false, issues: [{ path: ["n"], message: "expected a number" }] }),
        ),
      }),
    );
    expect(executed).toBe(false);
    expect(outcome).toEqual({
      ok: false,
      name: "ValidationError",
      message: 'Invalid input for tool "probe": n: expected a number',
    });
  });

  it("describes any thrown value, hostile ones included", async () => {
    const thrown = [new Error("boom"), "plain", null, 42, { code: 7 }, { message: "like an Error" }];
    const messages = [];
    for (const value of thrown) {
      const outcome = await runSandboxToolCall(
        call({
          tool: tool(async () => {
            throw value;
          }),
        }),
      );
      messages.push((outcome as { message: string }).message);
    }
    expect(messages).toEqual([
      'Tool "probe" failed: boom',
      'Tool "probe" failed: plain',
      'Tool "probe" failed: it threw null',
      'Tool "probe" failed: it threw 42',
      'Tool "probe" failed: it threw a non-Error value: {"code":7}',
      'Tool "probe" failed: like an Error',
    ]);
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error("trap");
        },
        getPrototypeOf() {
          throw new Error("trap");
        },
      },
    );
    expect(describeThrown(hostile)).toBe("it threw a value that cannot be read");
    const outcome = await runSandboxToolCall(
      call({
        tool: tool(async () => {
          throw hostile;
        }),
      }),
    );
    expect(outcome).toEqual({
      ok: false,
      name: "ToolError",
      message: 'Tool "probe" failed: it threw a value that cannot be read',
    });
  });

  it("hands a fatal error back for the executor to end the run with", async () => {
    const abort = new AbortError("stopped");
    const outcome = await runSandboxToolCall(
      call({
        tool: tool(async () => {
          throw abort;
        }),
      }),
    );
    expect(outcome).toEqual({ fatal: abort });
  });

  it("a fatal error from an observer ends the run, on the failure path too, and never rejects", async () => {
    const abort = new AbortError("observer stopped");
    for (const execute of [async () => 1, async () => Promise.reject(new Error("tool broke"))]) {
      const outcome = await runSandboxToolCall(
        call({
          tool: tool(execute),
          onToolCall: (event) => {
            if (event.type === "tool-result") throw abort;
          },
        }),
      );
      expect(outcome).toEqual({ fatal: abort });
    }
    let executed = false;
    const early = await runSandboxToolCall(
      call({
        tool: tool(async () => {
          executed = true;
        }),
        onToolCall: () => {
          throw abort;
        },
      }),
    );
    expect({ early, executed }).toEqual({ early: { fatal: abort }, executed: false });
  });

  it("an observer that throws changes nothing the code sees", async () => {
    const outcome = await runSandboxToolCall(
      call({
        tool: tool(async () => 5),
        onToolCall: () => {
          throw new Error("observer broke");
        },
      }),
    );
    expect(outcome).toEqual({ ok: true, json: "5" });
  });
});

describe("toJsonText", () => {
  it("gives no text for what is no value, and JSON.stringify's text otherwise", () => {
    expect([undefined, () => 1, Symbol("s")].map(toJsonText)).toEqual([undefined, undefined, undefined]);
    expect(toJsonText({ a: undefined, f: () => 1, list: [undefined, 1n] })).toBe('{"list":[null,"1"]}');
  });
});
