import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { PIXEL_PNG } from "@atrium/spec/testing";
import { describe, expect, it } from "vitest";
import type { RunResult } from "../src/agents/index.js";
import { js } from "./support/agents.js";
import { CLI_TEST_TIMEOUT_MS, cli, dir, normalise, packageDir, script, shellWord } from "./support/cli.js";

describe("atrium-agent CLI", { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it("prints a plain step trace on stderr (no colours when not a TTY) and the answer on stdout", async () => {
    const replies = script([
      js("const n = 6 * 7;\nconsole.log(n);", "Thought: multiply."),
      js("final_answer(n)"),
    ]);
    const { code, stdout, stderr } = await cli([
      "run",
      "What is 6 times 7?",
      "--model",
      `scripted:${replies}`,
    ]);
    expect(stderr).not.toMatch(/\u001b\[/);
    expect(normalise(stderr)).toBe(
      [
        "━━ Step 1 ━━",
        "  Thought: multiply.",
        "  ```js",
        "  const n = 6 * 7;",
        "  console.log(n);",
        "  ```",
        "▶ javascript",
        "  const n = 6 * 7;",
        "  console.log(n);",
        "Observation",
        "  Execution logs:",
        "  42",
        "  (T s, N in / N out tokens)",
        "━━ Step 2 ━━",
        "  Thought: next.",
        "  ```js",
        "  final_answer(n)",
        "  ```",
        "▶ javascript",
        "  final_answer(n)",
        "Observation",
        "  final_answer was called with:",
        "  42",
        "  (T s, N in / N out tokens)",
        "━━ Final answer ━━",
        "success after 2 steps, N in / N out tokens, T s",
        "",
      ].join("\n"),
    );
    expect(stdout).toBe("42\n");
    expect(code).toBe(0);
  });

  it("--json prints the RunResult, with the --image sent along", async () => {
    const png = join(dir, "pixel.png");
    writeFileSync(png, Buffer.from(PIXEL_PNG.image as string, "base64"));
    const replies = script([js('final_answer({ seen: "one pixel" })')]);
    const { code, stdout } = await cli([
      "run",
      "Describe.",
      "--model",
      `scripted:${replies}`,
      "--image",
      png,
      "--json",
      "--quiet",
    ]);
    const result = JSON.parse(stdout) as RunResult;
    expect(code).toBe(0);
    expect(result.state).toBe("success");
    expect(result.output).toEqual({ seen: "one pixel" });
    expect(result.steps[0]).toEqual({
      type: "task",
      task: "Describe.",
      images: [{ type: "image", image: PIXEL_PNG.image, mediaType: "image/png" }],
    });
  });

  it("the trace names the images sent with the task: count, media type and size, or URL", async () => {
    const png = join(dir, "pixel-trace.png");
    writeFileSync(png, Buffer.from(PIXEL_PNG.image as string, "base64"));
    const replies = script([js("final_answer(1)")]);
    const { code, stderr } = await cli([
      "run",
      "Describe.",
      "--model",
      `scripted:${replies}`,
      "--image",
      png,
      "--image",
      "https://example.com/cat.jpg",
    ]);
    expect(code).toBe(0);
    expect(stderr.split("\n")[0]).toBe(
      "2 images sent with the task: image/png 70 B, https://example.com/cat.jpg",
    );
  });

  it("exits 3 when the answer came from the closing call after --max-steps", async () => {
    const replies = script([js("1"), "Probably 1."]);
    const { code, stdout } = await cli([
      "run",
      "Loop.",
      "--model",
      `scripted:${replies}`,
      "--max-steps",
      "1",
      "--quiet",
    ]);
    expect(stdout).toBe("Probably 1.\n");
    expect(code).toBe(3);
  });

  it("exits 1 and says why when the provider fails", async () => {
    const replies = script([{ error: { message: "model not found", status: 404 } }]);
    const { code, stdout, stderr } = await cli(["run", "Task.", "--model", `scripted:${replies}`]);
    expect(stdout).toBe("");
    expect(normalise(stderr)).toBe(
      [
        "━━ Step 1 ━━",
        `✗ ProviderError: scripted:${replies} answered HTTP 404: model not found`,
        "error after 0 steps, N in / N out tokens, T s",
        `atrium-agent: the run failed: scripted:${replies} answered HTTP 404: model not found`,
        "",
      ].join("\n"),
    );
    expect(code).toBe(1);
  });

  it("exits 2 with a message that says what to fix on bad usage", async () => {
    const [noModel, badFlag] = await Promise.all([
      cli(["run", "Task."], { ATRIUM_MODEL: "" }),
      cli(["run", "Task.", "--model", "scripted:x.json", "--max-steps", "zero"]),
    ]);
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toBe(
      "atrium-agent run: no model; pass --model (e.g. --model openai:gpt-4o-mini) or set ATRIUM_MODEL (see atrium-agent run --help)\n",
    );
    expect(badFlag.stderr).toBe(
      'atrium-agent run: --max-steps must be a positive whole number, got "zero" (see atrium-agent run --help)\n',
    );
    expect(badFlag.code).toBe(2);
  });

  it("fails with exit 2 when an MCP server it was asked for cannot start, unless it is optional", async () => {
    const replies = script([js("final_answer(6 * 7)")]);
    const run = (...mcp: string[]) =>
      cli(["run", "Task.", "--model", `scripted:${replies}`, "--quiet", ...mcp]);
    const [required, optional, unclosed] = await Promise.all([
      run("--mcp", "/nonexistent/mcp-prog --flag"),
      run("--mcp-optional", "/nonexistent/mcp-prog --flag"),
      run("--mcp", 'node "server.js'),
    ]);
    expect(required).toEqual({
      code: 2,
      stdout: "",
      stderr: [
        "atrium-agent run: an MCP server could not start:",
        '  MCP server "prog": command not found: "/nonexistent/mcp-prog" (is it installed and on PATH?)',
        'Fix the command or URL, or mark the server optional (--mcp-optional, or "optional": true in --mcp-config).',
        "",
      ].join("\n"),
    });
    expect(optional).toEqual({
      code: 0,
      stdout: "42\n",
      stderr:
        'atrium-agent: warning: optional MCP server prog skipped: MCP server "prog": command not found: "/nonexistent/mcp-prog" (is it installed and on PATH?)\n',
    });
    expect(unclosed).toEqual({
      code: 2,
      stdout: "",
      stderr: `atrium-agent run: command "node "server.js" has an unclosed " quote; close it or escape it with a backslash\n`,
    });
  });

  it("quotes a binary replies file safely instead of echoing its bytes", async () => {
    const path = join(dir, "image.json");
    writeFileSync(
      path,
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x1b, 0x5b, 0x32, 0x4a]),
    );
    const { code, stdout, stderr } = await cli(["run", "Task.", "--model", `scripted:${path}`]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(
      /^atrium-agent run: Scripted replies file \S+image\.json is a binary file \(it starts "\\ufffdPNG\\r\\n\\u001a\\n\\u0000\\u001b\[2J"\), not JSON; expected a JSON array/,
    );
    expect(stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });

  it("uses the tools of an MCP server given with --mcp", async () => {
    const mcpRequire = createRequire(join(packageDir, "../mcp/package.json"));
    const everything = join(
      dirname(mcpRequire.resolve("@modelcontextprotocol/server-everything/package.json")),
      "dist/index.js",
    );
    const replies = script([js('final_answer(await echo({ message: "hi" }))')]);
    const { code, stdout, stderr } = await cli([
      "run",
      "Echo hi.",
      "--model",
      `scripted:${replies}`,
      "--mcp",
      // Quoted: a checkout path may hold spaces.
      `${shellWord(process.execPath)} ${shellWord(everything)} stdio`,
    ]);
    expect(stderr).toContain('→ echo({"message":"hi"})');
    expect(stdout).toBe("Echo: hi\n");
    expect(code).toBe(0);
  });
});

describe("atrium-agent doctor", { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it("says which isolations this host runs, and exits 0 when the OS sandbox starts", async () => {
    const { code, stdout, stderr } = await cli(["doctor"]);
    expect(stderr).toBe("");
    expect(stdout.replace(/in \d+ ms/, "in N ms")).toBe(
      [
        'QuickJS, isolation "worker" (the default): available',
        `OS sandbox (Python's default; QuickJS with isolation "process"): available (a sandbox started and answered in N ms)`,
        "",
      ].join("\n"),
    );
    expect(code).toBe(0);
  });

  it("names what is missing and exits 1 where the OS sandbox cannot start (--json)", async () => {
    const { code, stdout } = await cli(["doctor", "--json"], { ATRIUM_BWRAP: "/bin/false" });
    expect(JSON.parse(stdout)).toEqual({
      worker: { ok: true },
      osSandbox: {
        ok: false,
        reason:
          "the OS sandbox did not start (exit code 1); install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap) on Linux with user namespaces enabled",
      },
    });
    expect(code).toBe(1);
  });
});
