import { describe, expect, it } from "vitest";
import { summarizeImage, toWireEvent } from "./wire-events.js";

describe("toWireEvent", () => {
  it("sends images as type and decoded size, never their bytes", () => {
    const base64 = Buffer.from("0123456789").toString("base64"); // 10 bytes, "==" padding
    expect(
      toWireEvent(
        {
          type: "run-start",
          runId: "r",
          task: "t",
          images: [{ type: "image", image: base64, mediaType: "image/png" }],
        },
        100,
      ),
    ).toEqual({ type: "run-start", runId: "r", task: "t", images: [{ mediaType: "image/png", bytes: 10 }] });
    expect(toWireEvent({ type: "observation", step: 1, text: "seen" }, 100)).toEqual({
      type: "observation",
      step: 1,
      text: "seen",
    });
    expect(summarizeImage({ type: "image", image: Buffer.from("01234567890").toString("base64") })).toEqual({
      mediaType: "",
      bytes: 11,
    });
    expect(summarizeImage({ type: "image", image: new Uint8Array(7), mediaType: "image/gif" })).toEqual({
      mediaType: "image/gif",
      bytes: 7,
    });
  });

  it("cuts a tool's input and output to the trace's length, saying how long the output was", () => {
    expect(
      toWireEvent({ type: "tool-result", step: 2, id: "c", name: "echo", output: { text: "abcdefghij" } }, 8),
    ).toEqual({ type: "tool-result", step: 2, id: "c", name: "echo", output: '{"text":…', outputChars: 21 });
    expect(toWireEvent({ type: "tool-call", step: 2, id: "c", name: "echo", input: { a: 1 } }, 100)).toEqual({
      type: "tool-call",
      step: 2,
      id: "c",
      name: "echo",
      input: '{"a":1}',
    });
    // A call waiting for approval shows its input the same way, cut to the trace's length.
    expect(
      toWireEvent(
        { type: "approval-requested", step: 1, id: "c", name: "remember", input: { content: "abcdefghij" } },
        12,
      ),
    ).toEqual({ type: "approval-requested", step: 1, id: "c", name: "remember", input: '{"content":"…' });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(
      toWireEvent({ type: "tool-result", step: 1, id: "c", name: "x", output: cyclic }, 100),
    ).toMatchObject({
      output: "[object Object]",
    });
  });
});
