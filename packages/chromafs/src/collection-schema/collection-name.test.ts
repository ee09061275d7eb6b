import { describe, expect, it } from "vitest";
import { validateCollectionName } from "./collection-name.js";

describe("validateCollectionName", () => {
  it.each(["docs", "mintlify-docs", "a.b_c-9", "x".repeat(512)])("accepts %s", (name) => {
    expect(validateCollectionName(name)).toBe(name);
  });

  it.each(["ab", "a/b", "-docs", "docs.", "x".repeat(513), "dö cs", ""])("rejects %j", (name) => {
    expect(() => validateCollectionName(name)).toThrow(
      `Collection name ${JSON.stringify(name)} is invalid: use 3–512 characters of letters, digits, . _ -, starting and ending with a letter or digit`,
    );
  });
});
