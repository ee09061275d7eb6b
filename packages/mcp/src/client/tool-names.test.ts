import { TOOL_NAME_PATTERN } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { assignToolNames, sanitizeToolName } from "./tool-names.js";

describe("sanitizeToolName", () => {
  it.each([
    ["get-sum", "get_sum"],
    ["files.read", "files_read"],
    ["github/create-issue", "github_create_issue"],
    ["3d-render", "_3d_render"],
    ["delete", "delete_"],
    ["a".repeat(80), "a".repeat(64)],
  ])("%s → %s", (name, expected) => {
    expect(sanitizeToolName(name)).toBe(expected);
    expect(sanitizeToolName(name)).toMatch(TOOL_NAME_PATTERN);
  });
});

describe("assignToolNames", () => {
  it("prefixes only the names that collide, with the server name", () => {
    expect(
      assignToolNames([
        { server: "github", mcpName: "search" },
        { server: "github", mcpName: "create-issue" },
        { server: "docs", mcpName: "search" },
        { server: "docs", mcpName: "read" },
      ]),
    ).toEqual(["github_search", "create_issue", "docs_search", "read"]);
  });

  it("numbers two spellings on one server that sanitise alike", () => {
    expect(
      assignToolNames([
        { server: "s", mcpName: "get-sum" },
        { server: "s", mcpName: "get_sum" },
      ]),
    ).toEqual(["s_get_sum", "s_get_sum_2"]);
  });
});
