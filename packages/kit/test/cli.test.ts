import { readFileSync } from "node:fs";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  type CliProgram,
  choiceOption,
  defineCommand,
  integerOption,
  jsonText,
  packageVersion,
  runCli,
  UsageError,
} from "../src/cli/index.js";

const list = defineCommand({
  name: "list",
  summary: "list the things",
  usage: "[--limit N] [--json]",
  description: "Lists what there is, newest first.",
  options: {
    limit: { type: "string", value: "N", help: "at most N things" },
    json: { type: "boolean", help: "print them as JSON" },
  },
  run({ values }, io) {
    const limit = integerOption(values.limit, "--limit", { min: 1 }) ?? 2;
    const things = ["b", "a"].slice(0, limit);
    io.stdout.write(values.json ? jsonText(things) : `${things.join("\n")}\n`);
    return 0;
  },
});

const show = defineCommand({
  name: "show",
  summary: "show one thing",
  usage: "<name> [--as text|json]",
  arguments: [["<name>", "the thing's name"]],
  options: { as: { type: "string", value: "FORMAT", help: "text (default)\nor json" } },
  positionals: { min: 1, max: 1, names: "the thing's name" },
  run({ values, positionals }, io) {
    const as = choiceOption(values.as, "--as", ["text", "json"] as const);
    if (positionals[0] === "missing") throw new Error("no thing named missing");
    io.stdout.write(`${as ?? "text"}: ${positionals[0]}\n`);
    return 3;
  },
});

const exec = defineCommand({
  name: "exec",
  summary: "run a command elsewhere",
  usage: "-- COMMAND [ARG...]",
  rest: true,
  usageExitCode: 1,
  run({ rest }, io) {
    if (rest.length === 0) throw new UsageError("missing the command after --");
    io.stdout.write(`${JSON.stringify(rest)}\n`);
    return 0;
  },
});

const program: CliProgram = {
  name: "things",
  description: "Keeps things.",
  version: () => packageVersion(import.meta.url),
  commands: [list, show, { name: "more", summary: "more commands", commands: [exec] }],
  footer: "Exit codes: 0 done, 1 failed, 2 bad usage.",
};

async function run(argv: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const exitCode = await runCli(program, argv, {
    stdin: Readable.from([]),
    stdout: { write: (text: string | Uint8Array) => (stdout += String(text)) },
    stderr: { write: (text: string | Uint8Array) => (stderr += String(text)) },
    env,
  });
  return { stdout, stderr, exitCode };
}

const ok = (stdout: string) => ({ stdout, stderr: "", exitCode: 0 });
const usage = (stderr: string, exitCode = 2) => ({ stdout: "", stderr, exitCode });

describe("runCli", () => {
  it("--help lists the commands; a command's --help is its usage, description, arguments and options", async () => {
    expect(await run(["--help"])).toEqual(
      ok(
        [
          "Usage: things <command> [options]",
          "",
          "Keeps things.",
          "",
          "Commands:",
          "  list                list the things",
          "  show                show one thing",
          "  more                more commands",
          "",
          "Options:",
          "  -h, --help          show this help",
          "  -v, --version       print the version",
          "",
          "Exit codes: 0 done, 1 failed, 2 bad usage.",
          "Run `things <command> --help` for a command's options.",
          "",
        ].join("\n"),
      ),
    );
    expect(await run(["show", "-h"])).toEqual(
      ok(
        [
          "Usage: things show <name> [--as text|json]",
          "",
          "Arguments:",
          "  <name>              the thing's name",
          "",
          "Options:",
          "  --as FORMAT         text (default)",
          "                      or json",
          "  -h, --help          show this help",
          "",
        ].join("\n"),
      ),
    );
    expect((await run(["more", "--help"])).stdout).toContain("Usage: things more <command> [options]\n");
    expect((await run(["more", "exec", "--help"])).stdout).toMatch(/^Usage: things more exec -- COMMAND/);
  });

  it("--version prints the package's version", async () => {
    const manifest = new URL("../package.json", import.meta.url);
    const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
    expect(await run(["--version"])).toEqual(ok(`${version}\n`));
    expect(await run(["-v"])).toEqual(ok(`${version}\n`));
  });

  it("runs a command with its options and positionals; its result is the exit code", async () => {
    expect(await run(["list"])).toEqual(ok("b\na\n"));
    expect(JSON.parse((await run(["list", "--json", "--limit", "1"])).stdout)).toEqual(["b"]);
    expect(await run(["show", "x", "--as", "json"])).toEqual({
      stdout: "json: x\n",
      stderr: "",
      exitCode: 3,
    });
    expect(await run(["more", "exec", "--", "ls", "-l"])).toEqual(ok('["ls","-l"]\n'));
  });

  it("a usage error is one line naming the mistake and the help, exit 2", async () => {
    expect(await run([])).toEqual(
      usage("things: missing command: use list, show or more (see things --help)\n"),
    );
    expect(await run(["frobnicate"])).toEqual(
      usage('things: unknown command "frobnicate": use list, show or more (see things --help)\n'),
    );
    expect(await run(["--bogus"])).toEqual(usage("things: Unknown option '--bogus' (see things --help)\n"));
    expect(await run(["list", "--bogus"])).toEqual(
      usage("things list: Unknown option '--bogus' (see things list --help)\n"),
    );
    expect(await run(["list", "--limit", "0"])).toEqual(
      usage('things list: --limit must be a positive whole number, got "0" (see things list --help)\n'),
    );
    expect(await run(["show"])).toEqual(
      usage("things show: missing the thing's name (see things show --help)\n"),
    );
    expect(await run(["show", "a", "b"])).toEqual(
      usage('things show: unexpected argument "b" (see things show --help)\n'),
    );
    expect(await run(["show", "a", "--as", "xml"])).toEqual(
      usage('things show: --as must be one of text, json, got "xml" (see things show --help)\n'),
    );
    expect(await run(["more", "nothing"])).toEqual(
      usage('things more: unknown command "nothing": use exec (see things more --help)\n'),
    );
  });

  it("a command may keep 2 for itself: its usage errors then exit with its own code", async () => {
    expect(await run(["more", "exec"])).toEqual(
      usage("things more exec: missing the command after -- (see things more exec --help)\n", 1),
    );
  });

  it("a failure is one line with the message, exit 1; the stack only with ATRIUM_DEBUG=1", async () => {
    expect(await run(["show", "missing"])).toEqual(usage("things show: no thing named missing\n", 1));
    const debug = await run(["show", "missing"], { ATRIUM_DEBUG: "1" });
    expect(debug.exitCode).toBe(1);
    expect(debug.stderr).toMatch(
      /^things show: no thing named missing\nError: no thing named missing\n\s+at /,
    );
  });
});
