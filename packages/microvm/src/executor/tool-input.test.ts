import type { Tool } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { toolInputFromCall } from "./tool-input.js";

const tool = (properties?: Record<string, unknown>): Tool => ({
  name: "t",
  description: "",
  inputSchema: properties ? { type: "object", properties } : { type: "object" },
  execute: async () => undefined,
});

describe("toolInputFromCall", () => {
  it("maps keywords by name and positionals onto the schema's properties in order", () => {
    expect(toolInputFromCall(tool({ a: {}, b: {} }), [], { a: 1, b: 2 })).toEqual({ a: 1, b: 2 });
    expect(toolInputFromCall(tool({ a: {}, b: {} }), [1], { b: 2 })).toEqual({ a: 1, b: 2 });
    expect(toolInputFromCall(tool({ a: {}, b: {} }), [1, 2], {})).toEqual({ a: 1, b: 2 });
  });

  it("takes a lone dict as the input of a tool without declared properties", () => {
    expect(toolInputFromCall(tool(), [{ q: "x" }], {})).toEqual({ q: "x" });
  });

  it("refuses too many positionals, a doubled argument and positionals without an order", () => {
    expect(() => toolInputFromCall(tool({ a: {} }), [1, 2], {})).toThrow(
      "t() takes at most 1 positional arguments (a), got 2",
    );
    expect(() => toolInputFromCall(tool({ a: {} }), [1], { a: 2 })).toThrow(
      "t() got multiple values for argument 'a'",
    );
    expect(() => toolInputFromCall(tool(), [1], {})).toThrow(
      "t() takes keyword arguments only (it declares no parameter order)",
    );
  });
});
