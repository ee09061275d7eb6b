import { ConfigError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { parseDemoArgs } from "./cli-args.js";

describe("parseDemoArgs", () => {
  it("reads questions, user, groups and MCP servers", () => {
    expect(
      parseDemoArgs(["-q", " What is mint dev? ", "--groups", "staff, ,beta", "--mcp", "npx x"]),
    ).toEqual({
      help: false,
      questions: ["What is mint dev?"],
      eval: false,
      evalFile: undefined,
      json: false,
      user: "demo",
      groups: ["staff", "beta"],
      mcp: ["npx x"],
      corpus: undefined,
      data: undefined,
    });
  });

  it("refuses mistakes with a message saying what to change", () => {
    expect(() => parseDemoArgs(["--eval", "-q", "x"])).toThrow(
      "--eval and --question do not go together; pick one",
    );
    expect(() => parseDemoArgs(["--eval-file", "f.json"])).toThrow("--eval-file goes with --eval");
    expect(() => parseDemoArgs(["what is this"])).toThrow(
      /^unexpected argument "what is this"; put a question after --question/,
    );
    expect(() => parseDemoArgs(["--nope"])).toThrow(ConfigError);
    expect(() => parseDemoArgs(["-q", "  "])).toThrow("--question needs a non-empty question");
  });
});
