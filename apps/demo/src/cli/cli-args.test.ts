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
      memory: true,
      groups: ["staff", "beta"],
      mcp: ["npx x"],
      corpus: undefined,
      data: undefined,
      web: false,
      verbose: false,
      approvals: "off",
    });
    expect(parseDemoArgs(["--verbose"]).verbose).toBe(true);
  });

  it("reads --approve memory-writes, and refuses a policy it does not know", () => {
    expect(parseDemoArgs(["--web", "--approve", " memory-writes "]).approvals).toBe("memory-writes");
    expect(parseDemoArgs(["--approve", "off"]).approvals).toBe("off");
    expect(() => parseDemoArgs(["--approve", "everything"])).toThrow(
      '--approve "everything" is not a policy; give off or memory-writes, e.g. --approve memory-writes',
    );
  });

  it("reads --user (the palace wing) and --no-memory", () => {
    expect(parseDemoArgs(["--user", " alice ", "--no-memory"])).toMatchObject({
      user: "alice",
      memory: false,
    });
    expect(parseDemoArgs([])).toMatchObject({ user: "demo", memory: true });
    expect(() => parseDemoArgs(["--user", "  "])).toThrow(
      "--user needs a name of 1 to 200 visible characters, e.g. --user alice",
    );
  });

  it("reads --executor, and refuses it with --web (the page has its own switch)", () => {
    expect(parseDemoArgs(["-q", "x", "--executor", " python "])).toMatchObject({ executor: "python" });
    expect(parseDemoArgs([]).executor).toBeUndefined();
    expect(() => parseDemoArgs(["--web", "--executor", "python"])).toThrow(
      "--executor goes with questions; the web page has its own executor switch",
    );
  });

  it("reads --web with its port and host, and refuses them elsewhere", () => {
    expect(parseDemoArgs(["--web", "--port", "8080", "--host", " ::1 "])).toMatchObject({
      web: true,
      port: 8080,
      host: "::1",
    });
    expect(parseDemoArgs(["--web"])).toMatchObject({ web: true, port: undefined, host: undefined });
    expect(() => parseDemoArgs(["--port", "8080"])).toThrow("--port and --host go with --web");
    expect(() => parseDemoArgs(["--web", "--port", "80x"])).toThrow(
      '--port "80x" is not a port; give 0..65535 (0: a free one)',
    );
    expect(() => parseDemoArgs(["--web", "--port", "70000"])).toThrow(/^--port "70000" is not a port/);
    expect(() => parseDemoArgs(["--web", "-q", "x"])).toThrow(
      "--web serves the page where questions are asked; leave out --eval and --question",
    );
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

  it("reads --help and -h, also after the second `--` pnpm once needed", () => {
    expect(parseDemoArgs(["--help"]).help).toBe(true);
    expect(parseDemoArgs(["-h"]).help).toBe(true);
    expect(parseDemoArgs(["--", "--help"]).help).toBe(true);
    expect(parseDemoArgs(["--", "-q", "x"]).questions).toEqual(["x"]);
  });

  it("names an unknown option in its own words, then the usage", () => {
    expect(() => parseDemoArgs(["--bogus"])).toThrow(
      /^unknown option "--bogus"; the options are below \(--help prints them\)\n\nUsage: npm run demo -- \[options\]\n/,
    );
    expect(() => parseDemoArgs(["-x"])).toThrow(/^unknown option "-x"; the options are below/);
  });
});
