import { richToolResult, ToolError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { DEFAULT_MCP_LIMITS } from "../limits.js";
import { toToolResult } from "./call-result.js";

describe("toToolResult", () => {
  it("joins text parts", () => {
    expect(
      toToolResult("t", {
        content: [
          { type: "text", text: "one" },
          { type: "text", text: "two" },
        ],
      }),
    ).toBe("one\ntwo");
  });

  it("prefers structured content", () => {
    expect(
      toToolResult("t", { content: [{ type: "text", text: '{"a":1}' }], structuredContent: { a: 1 } }),
    ).toEqual({ a: 1 });
  });

  it("carries images in a RichToolResult and describes resources", () => {
    expect(
      toToolResult("t", {
        content: [
          { type: "text", text: "see" },
          { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
          { type: "resource_link", uri: "file:///a.txt", name: "a.txt" },
          { type: "resource", resource: { uri: "file:///b.txt", text: "inline text" } },
        ],
      }),
    ).toEqual(
      richToolResult("see\n[resource a.txt: file:///a.txt]\ninline text", [
        { type: "image", image: "iVBORw0KGgo=", mediaType: "image/png" },
      ]),
    );
  });

  it("throws a ToolError with the server's text for isError", () => {
    expect(() =>
      toToolResult("t", { content: [{ type: "text", text: "rate limited" }], isError: true }),
    ).toThrow(new ToolError("t", "rate limited"));
  });

  it("cuts text past the limit with a note", () => {
    const text = "x".repeat(DEFAULT_MCP_LIMITS.maxResultTextChars + 5);
    expect(toToolResult("t", { content: [{ type: "text", text }] })).toBe(
      `${"x".repeat(DEFAULT_MCP_LIMITS.maxResultTextChars)}\n[… 5 more characters cut]`,
    );
  });

  it("gives the cut text instead of structured content past the limit", () => {
    const big = { rows: "y".repeat(DEFAULT_MCP_LIMITS.maxResultTextChars) };
    const json = JSON.stringify(big);
    const cut = `${json.slice(0, DEFAULT_MCP_LIMITS.maxResultTextChars)}\n[… ${json.length - DEFAULT_MCP_LIMITS.maxResultTextChars} more characters cut]`;
    expect(toToolResult("t", { content: [{ type: "text", text: json }], structuredContent: big })).toBe(cut);
    expect(toToolResult("t", { content: [], structuredContent: big })).toBe(cut);
    expect(toToolResult("t", { content: [], structuredContent: { ok: true } })).toEqual({ ok: true });
  });
});
