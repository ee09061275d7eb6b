import { describe, expect, it } from "vitest";
import { encodeBytesFrame, encodeJsonFrame, FrameError, FrameReader } from "../src/index.js";

const limits = { maxJsonBytes: 1024, maxBytesBytes: 1024 };

describe("FrameReader", () => {
  it("reads JSON and bytes frames split at any byte", () => {
    const stream = Buffer.concat([
      encodeJsonFrame({ t: "event", name: "a" }),
      encodeBytesFrame(new Uint8Array([1, 2, 3])),
      encodeJsonFrame([1, "é", null, "[[[[{{{{"]),
    ]);
    for (let cut = 1; cut < stream.length; cut++) {
      const reader = new FrameReader(limits);
      const frames = [...reader.push(stream.subarray(0, cut)), ...reader.push(stream.subarray(cut))];
      expect(frames).toEqual([
        { kind: "json", value: { t: "event", name: "a" } },
        { kind: "bytes", bytes: Buffer.from([1, 2, 3]) },
        { kind: "json", value: [1, "é", null, "[[[[{{{{"] },
      ]);
    }
  });

  it("refuses a frame announced over its limit before buffering any of it, and stays broken", () => {
    const reader = new FrameReader(limits);
    expect(() => reader.push(Buffer.from([0x7f, 0xff, 0xff, 0xff, 0]))).toThrow(
      new FrameError("a frame of 2147483646 bytes was announced; the limit is 1024"),
    );
    expect(() => reader.push(encodeJsonFrame(1))).toThrow(FrameError);
  });

  it("refuses bytes frames once told to, and when none are allowed", () => {
    const reader = new FrameReader(limits);
    expect(reader.push(encodeBytesFrame(new Uint8Array(10)))).toHaveLength(1);
    reader.refuseBytes();
    expect(() => reader.push(encodeBytesFrame(new Uint8Array(1)))).toThrow(
      new FrameError("a bytes frame of 1 bytes was announced; none are accepted now"),
    );
  });

  it("refuses JSON nested deeper than its limit without parsing it (brackets inside strings do not count)", () => {
    const deep = Buffer.from(`${"[".repeat(65)}${"]".repeat(65)}`);
    const frame = Buffer.concat([Buffer.from([0, 0, 0, deep.length + 1, 0]), deep]);
    expect(() => new FrameReader(limits).push(frame)).toThrow(
      new FrameError("a frame's JSON nests deeper than 64 levels"),
    );
    const shallow = encodeJsonFrame({ text: `"${"[".repeat(500)}\\"` });
    expect(new FrameReader(limits).push(shallow)).toHaveLength(1);
  });

  it("refuses JSON that does not parse and an unknown kind", () => {
    const bad = Buffer.from([0, 0, 0, 3, 0, 0x7b, 0x7b]);
    expect(() => new FrameReader(limits).push(bad)).toThrow(new FrameError("a frame's JSON did not parse"));
    const unknown = Buffer.from([0, 0, 0, 1, 9]);
    expect(() => new FrameReader(limits).push(unknown)).toThrow(
      new FrameError("a frame of unknown kind 9 arrived"),
    );
    const empty = Buffer.from([0, 0, 0, 0, 0]);
    expect(() => new FrameReader(limits).push(empty)).toThrow(
      new FrameError("a frame of -1 bytes was announced; the limit is 1024"),
    );
  });
});
