import { describe, expect, it } from "vitest";
import { MessageMeter } from "./bounded-fetch.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("MessageMeter", () => {
  it("counts a JSON body in full", () => {
    const meter = new MessageMeter(false);
    expect(meter.add(bytes("{\n\n"))).toBe(3);
    expect(meter.add(bytes("}"))).toBe(4);
  });

  it("counts each SSE event up to its blank line, across chunks", () => {
    const meter = new MessageMeter(true);
    expect(meter.add(bytes("data: 12345\n\ndata: 1"))).toBe(13);
    expect(meter.add(bytes("234567"))).toBe(13);
    expect(meter.add(bytes("89\n"))).toBe(16);
    expect(meter.add(bytes("\ndata: x\r\n\r\n"))).toBe(17);
    expect(meter.add(bytes("data: y\r\n\r"))).toBe(10);
    expect(meter.add(bytes("\ndata"))).toBe(11);
    expect(meter.add(bytes(": z"))).toBe(7);
  });
});
