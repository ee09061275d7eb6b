// `atrium-agent run --approve`: the questions on a real terminal (a pseudo-terminal through
// util-linux `script`), answered by typing, against a real MCP server over stdio whose
// `delete_file` has no annotations, so MCP's defaults make it wait for an approval.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { cliArgs } from "../../../tests/test-target.ts";
import { js } from "./support/agents.js";
import {
  CLI_KILL_MS,
  CLI_TEST_TIMEOUT_MS,
  cli,
  dir,
  normalise,
  packageDir,
  plainEnv,
  script,
  shellWord,
} from "./support/cli.js";
import { type PtyAnswer, runInPty } from "./support/pty.js";

const tsx = pathToFileURL(createRequire(join(packageDir, "package.json")).resolve("tsx")).href;
const filesServer = join(packageDir, "test/fixtures/mcp/files-server.ts");

let folders = 0;
/** A folder holding a.txt and b.txt, and the `--mcp` command line of a files server over it. */
function filesFolder(): { folder: string; mcp: string } {
  const folder = join(dir, `files-${++folders}`);
  mkdirSync(folder);
  writeFileSync(join(folder, "a.txt"), "a");
  writeFileSync(join(folder, "b.txt"), "b");
  const server = [process.execPath, "--conditions=@atrium/source", "--import", tsx, filesServer, folder];
  return { folder, mcp: server.map(shellWord).join(" ") };
}

/** The model tries to delete a.txt (saying what came of it), then answers with what is left. */
const deleteThenList = () =>
  script([
    js(
      'try { console.log(await delete_file({ name: "a.txt" })) } catch (e) { console.log(e.message) }',
      "Thought: delete it.",
    ),
    js("final_answer(await list_files({}))", "Thought: done."),
  ]);

/** `run` on the delete-then-list script against a fresh files folder, with `flags`. */
function deleteRun(flags: string[], replies = deleteThenList()): { folder: string; args: string[] } {
  const { folder, mcp } = filesFolder();
  return { folder, args: ["run", "Delete a.txt.", "--model", `scripted:${replies}`, "--mcp", mcp, ...flags] };
}

const REQUESTED = '⏸ delete_file({"name":"a.txt"}) needs approval (step 1)';

/** The approved call's lines, up to its observation. */
const RAN = [
  "✓ delete_file approved",
  '→ delete_file({"name":"a.txt"})',
  "← delete_file: deleted a.txt",
  "Observation",
  "  Execution logs:",
  "  deleted a.txt",
];

/** The run's lines up to its first observation, which says what became of the call. */
const STEP_1_HEAD = [
  "━━ Step 1 ━━",
  "  Thought: delete it.",
  "  ```js",
  '  try { console.log(await delete_file({ name: "a.txt" })) } catch (e) { console.log(e.message) }',
  "  ```",
  "▶ javascript",
  '  try { console.log(await delete_file({ name: "a.txt" })) } catch (e) { console.log(e.message) }',
];

/** Step 2 and the end, with the files that are left. */
const listAndAnswer = (left: string) => [
  "  (T s, N in / N out tokens)",
  "━━ Step 2 ━━",
  "  Thought: done.",
  "  ```js",
  "  final_answer(await list_files({}))",
  "  ```",
  "▶ javascript",
  "  final_answer(await list_files({}))",
  "→ list_files({})",
  `← list_files: ${left}`,
  "Observation",
  "  final_answer was called with:",
  `  ${left}`,
  "  (T s, N in / N out tokens)",
  "━━ Final answer ━━",
  "success after 2 steps, N in / N out tokens, T s",
];

function onTerminal(args: string[], answers: PtyAnswer[]) {
  return runInPty([process.execPath, ...cliArgs(packageDir), ...args], {
    cwd: packageDir,
    env: { ...plainEnv, NO_COLOR: "1" },
    answers,
    killMs: CLI_KILL_MS,
  });
}

describe("atrium-agent run --approve, on a terminal", { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it("shows the call and its step, and y runs it", async () => {
    const { folder, args } = deleteRun(["--approve"]);
    const { code, screen } = await onTerminal(args, [{ after: "Run delete_file? [y/n] ", send: "y\r" }]);
    expect(normalise(screen)).toBe(
      [
        ...STEP_1_HEAD,
        REQUESTED,
        "  Run delete_file? [y/n] y",
        ...RAN,
        ...listAndAnswer('["b.txt"]'),
        '["b.txt"]',
        "",
      ].join("\n"),
    );
    expect(code).toBe(0);
    expect(readdirSync(folder)).toEqual(["b.txt"]);
  });

  it("n refuses it: asks again on an answer that is neither, and the reason typed reaches the model", async () => {
    const { folder, args } = deleteRun(["--approve"]);
    const { code, screen } = await onTerminal(args, [
      { after: "Run delete_file? [y/n] ", send: "maybe\r" },
      { after: "or n (refuse it): ", send: "n\r" },
      { after: "Enter to skip) ", send: "a.txt is the budget\r" },
    ]);
    expect(normalise(screen)).toBe(
      [
        ...STEP_1_HEAD,
        REQUESTED,
        "  Run delete_file? [y/n] maybe",
        "  Please answer y (run delete_file) or n (refuse it): n",
        "  Why not? (optional, told to the model; Enter to skip) a.txt is the budget",
        "✗ delete_file denied: a.txt is the budget",
        "Observation",
        "  Execution logs:",
        '  Tool "delete_file" was not approved: a.txt is the budget',
        ...listAndAnswer('["a.txt","b.txt"]'),
        '["a.txt","b.txt"]',
        "",
      ].join("\n"),
    );
    expect(code).toBe(0);
    expect(readdirSync(folder)).toEqual(["a.txt", "b.txt"]);
  });

  it("with --quiet the question itself names the call; n and Enter refuse it as denied at the terminal", async () => {
    const replies = script([
      js(
        'let r;\ntry { r = await delete_file({ name: "a.txt" }) } catch (e) { r = e.message }\nfinal_answer(r)',
      ),
    ]);
    const { args } = deleteRun(["--approve", "--quiet"], replies);
    const { code, screen } = await onTerminal(args, [
      { after: "Run delete_file? [y/n] ", send: "n\r" },
      { after: "Enter to skip) ", send: "\r" },
    ]);
    expect(screen).toBe(
      [
        REQUESTED,
        "  Run delete_file? [y/n] n",
        "  Why not? (optional, told to the model; Enter to skip) ",
        'Tool "delete_file" was not approved: denied at the terminal',
        "",
      ].join("\n"),
    );
    expect(code).toBe(0);
  });

  it("Ctrl-C at the question ends the run cleanly: the call never runs, exit 130", async () => {
    const { folder, args } = deleteRun(["--approve"]);
    const { code, screen } = await onTerminal(args, [{ after: "Run delete_file? [y/n] ", send: "\u0003" }]);
    expect(normalise(screen)).toBe(
      [
        ...STEP_1_HEAD,
        REQUESTED,
        // The terminal echoes Ctrl-C as ^C; the question's line is ended before the next.
        "  Run delete_file? [y/n] ^C",
        "✗ delete_file denied: the step that called this tool ended",
        "✗ AbortError: The run was aborted",
        "aborted after 0 steps, N in / N out tokens, T s",
        "atrium-agent: the run was interrupted: The run was aborted",
        "",
      ].join("\n"),
    );
    expect(code).toBe(130);
    expect(readdirSync(folder)).toEqual(["a.txt", "b.txt"]);
  });
});

describe("atrium-agent run and approvals without a terminal", { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it("--approve is a usage error that names the script's ways, before anything starts", async () => {
    const { folder, args } = deleteRun(["--approve"]);
    const { code, stdout, stderr } = await cli(args);
    expect(stderr).toBe(
      "atrium-agent run: --approve asks at the terminal, but stdin is not a terminal; in a script, pass --approve-all to run every call that needs approval unasked, or leave both out to refuse those calls (see atrium-agent run --help)\n",
    );
    expect(stdout).toBe("");
    expect(code).toBe(2);
    expect(existsSync(join(folder, "a.txt"))).toBe(true);
  });

  it("run --help says what needs approval and how each flag answers", async () => {
    const { code, stdout } = await cli(["run", "--help"]);
    expect(stdout).toContain(
      [
        "  --approve                        ask at the terminal before each tool call that needs approval",
        "                                   (an MCP tool that may destroy): y runs it, n refuses it;",
        "                                   needs a terminal on stdin",
        "  --approve-all                    run every call that needs approval without asking (scripts, CI);",
        "                                   the trace still shows each",
      ].join("\n"),
    );
    expect(stdout).toContain(
      [
        "Approvals: a tool that needs approval (an MCP tool that may destroy: neither readOnlyHint:",
        'true nor destructiveHint: false, unless its server\'s "approval" in --mcp-config says "always" or',
        '"never") runs only when you answer y to --approve, or with --approve-all. Without either,',
        "such calls are refused and the model is told why. Ctrl-C while a question waits ends the run.",
      ].join("\n"),
    );
    expect(code).toBe(0);
  });

  it("--approve with --approve-all is a usage error", async () => {
    const { code, stderr } = await cli([
      "run",
      "x",
      "--model",
      "scripted:none.json",
      "--approve",
      "--approve-all",
    ]);
    expect(stderr).toBe(
      "atrium-agent run: --approve asks at the terminal and --approve-all approves unasked; give one of them (see atrium-agent run --help)\n",
    );
    expect(code).toBe(2);
  });

  it("--approve-all runs the call unasked, and the trace shows its approval", async () => {
    const { folder, args } = deleteRun(["--approve-all"]);
    const { code, stdout, stderr } = await cli(args);
    expect(normalise(stderr)).toBe(
      [...STEP_1_HEAD, REQUESTED, ...RAN, ...listAndAnswer('["b.txt"]'), ""].join("\n"),
    );
    expect(stdout).toBe('["b.txt"]\n');
    expect(code).toBe(0);
    expect(readdirSync(folder)).toEqual(["b.txt"]);
  });

  it("without either, the call is refused and the model is told how to allow it", async () => {
    const { folder, args } = deleteRun([]);
    const { code, stdout, stderr } = await cli(args);
    expect(normalise(stderr)).toContain(
      [
        "▶ javascript",
        '  try { console.log(await delete_file({ name: "a.txt" })) } catch (e) { console.log(e.message) }',
        "Observation",
        "  Execution logs:",
        '  Tool "delete_file" was not approved: it needs approval and no one was asked (give the run an onApproval handler, or run the CLI with --approve)',
        "  (T s, N in / N out tokens)",
      ].join("\n"),
    );
    expect(stdout).toBe('["a.txt","b.txt"]\n');
    expect(code).toBe(0);
    expect(readdirSync(folder)).toEqual(["a.txt", "b.txt"]);
  });
});
