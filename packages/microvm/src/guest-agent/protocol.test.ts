import { describe, expect, it } from "vitest";
import { encodeHostFrame, FrameFormatError, GuestFrameDecoder } from "./protocol.js";

function guestFrame(type: number, id: number, body: number[]): Uint8Array {
  const frame = new Uint8Array(9 + body.length);
  const view = new DataView(frame.buffer);
  view.setUint32(0, 5 + body.length, true);
  frame[4] = type;
  view.setUint32(5, id, true);
  frame.set(body, 9);
  return frame;
}

describe("frames", () => {
  it("encodes an exec as agent.c reads it", () => {
    const frame = encodeHostFrame({
      type: "exec",
      id: 7,
      argv: ["sh"],
      env: ["A=1"],
      cwd: "/",
      timeoutMs: 500,
      hasStdin: true,
    });
    expect(Buffer.from(frame).toString("hex")).toBe(
      [
        "27000000", // length of the rest: 39
        "01", // exec
        "07000000", // id
        "f4010000", // timeoutMs 500
        "01000000", // has stdin
        "01000000",
        "02000000",
        "7368", // argv ["sh"]
        "01000000",
        "03000000",
        "413d31", // env ["A=1"]
        "01000000",
        "2f", // cwd "/"
      ].join(""),
    );
  });

  it("decodes guest frames split at any byte", () => {
    const stream = new Uint8Array(
      Buffer.concat([
        guestFrame(64, 0, [1, 0, 0, 0]),
        guestFrame(65, 3, [104, 105]),
        guestFrame(67, 3, [0xfe, 0xff, 0xff, 0xff, 9, 0, 0, 0, 1]),
        guestFrame(68, 4, [2, 0, 0, 0, 2, 0, 0, 0, 110, 111]),
      ]),
    );
    for (let cut = 0; cut <= stream.length; cut++) {
      const decoder = new GuestFrameDecoder();
      const frames = [...decoder.push(stream.subarray(0, cut)), ...decoder.push(stream.subarray(cut))];
      expect(frames).toEqual([
        { type: "ready", id: 0, version: 1 },
        { type: "stdout", id: 3, data: new Uint8Array([104, 105]) },
        { type: "exit", id: 3, code: -2, signal: 9, timedOut: true },
        { type: "error", id: 4, errno: 2, message: "no" },
      ]);
    }
  });

  it("refuses a frame length outside the protocol, and unknown types", () => {
    expect(() => new GuestFrameDecoder().push(new Uint8Array([0xff, 0xff, 0xff, 0x7f]))).toThrow(
      FrameFormatError,
    );
    expect(() => new GuestFrameDecoder().push(guestFrame(99, 1, []))).toThrow(
      "unknown frame type 99 from the guest",
    );
    expect(() => new GuestFrameDecoder().push(guestFrame(67, 1, [1]))).toThrow(
      "frame type 67: body of 1 bytes is too short",
    );
  });
});
