import { describe, expect, it } from "vitest";
import { ConfigError, errorMessage, serializeError } from "../src/errors.js";

describe("errorMessage", () => {
  it("takes an Error's message, subclasses included", () => {
    expect(errorMessage(new Error("disk full"))).toBe("disk full");
    expect(errorMessage(new ConfigError("bad port"))).toBe("bad port");
    expect(errorMessage(new TypeError(""))).toBe("");
  });

  it("turns any other thrown value into text", () => {
    expect(errorMessage("plain string")).toBe("plain string");
    expect(errorMessage(42)).toBe("42");
    expect(errorMessage(undefined)).toBe("undefined");
    expect(errorMessage(null)).toBe("null");
    expect(errorMessage({ message: "not an Error" })).toBe("[object Object]");
  });

  it("survives values whose toString throws or is missing", () => {
    expect(errorMessage(Object.create(null))).toBe("[object Object]");
    const hostile = {
      toString() {
        throw new Error("nope");
      },
    };
    expect(errorMessage(hostile)).toBe("[object Object]");
  });

  it("is what serializeError reports for non-Error values", () => {
    expect(serializeError(Object.create(null)).message).toBe("[object Object]");
  });
});
