import { ConfigError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { type LimitKinds, resolveLimitValues } from "../src/limits/resolve-limit-values.js";

interface ToyLimits {
  maxItems: number;
  timeoutMs: number;
}
const DEFAULTS: Readonly<ToyLimits> = Object.freeze({ maxItems: 10, timeoutMs: 1_000 });
const KINDS: LimitKinds<ToyLimits> = { maxItems: "count", timeoutMs: "duration" };

const resolve = (partial?: Partial<ToyLimits>) => resolveLimitValues("@toy/pkg", DEFAULTS, KINDS, partial);

function refusal(partial: unknown): string {
  try {
    resolve(partial as Partial<ToyLimits>);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("resolveLimitValues", () => {
  it("returns the defaults, frozen, when nothing is overridden", () => {
    const limits = resolve();
    expect(limits).toEqual({ maxItems: 10, timeoutMs: 1_000 });
    expect(Object.isFrozen(limits)).toBe(true);
    expect(limits).not.toBe(DEFAULTS);
  });

  it("overrides the given fields and keeps the default for undefined ones", () => {
    expect(resolve({ maxItems: 3 })).toEqual({ maxItems: 3, timeoutMs: 1_000 });
    expect(resolve({ maxItems: undefined, timeoutMs: 2.5 })).toEqual({ maxItems: 10, timeoutMs: 2.5 });
  });

  it("refuses counts that are not positive integers, naming package, field and value", () => {
    for (const [value, shown] of [
      [0, "0"],
      [-1, "-1"],
      [1.5, "1.5"],
      [Number.NaN, "NaN"],
      [Number.POSITIVE_INFINITY, "Infinity"],
      ["10", '"10"'],
      [null, "null"],
    ] as const) {
      expect(refusal({ maxItems: value })).toBe(
        `@toy/pkg limit maxItems must be a positive integer, got ${shown}`,
      );
    }
  });

  it("refuses durations that are not positive finite numbers", () => {
    expect(refusal({ timeoutMs: 0 })).toBe(
      "@toy/pkg limit timeoutMs must be a positive finite number of milliseconds, got 0",
    );
    expect(refusal({ timeoutMs: Number.POSITIVE_INFINITY })).toBe(
      "@toy/pkg limit timeoutMs must be a positive finite number of milliseconds, got Infinity",
    );
  });

  it("refuses unknown fields, listing the known ones", () => {
    expect(refusal({ maxItem: 3 })).toBe(
      '@toy/pkg has no limit "maxItem"; known limits: maxItems, timeoutMs',
    );
    expect(refusal({ toString: 3 })).toBe(
      '@toy/pkg has no limit "toString"; known limits: maxItems, timeoutMs',
    );
  });

  it("refuses a partial that is not an object", () => {
    expect(refusal(null)).toBe("@toy/pkg limits must be an object of numbers, got null");
    expect(refusal(5)).toBe("@toy/pkg limits must be an object of numbers, got 5");
  });
});
