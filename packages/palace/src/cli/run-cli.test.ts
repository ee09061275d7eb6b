import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { CliIo } from "./cli-command.js";
import { COMMANDS, runCli } from "./run-cli.js";

/** Runs a command line in this process (for what never opens a palace: help and usage errors). */
async function inProcess(argv: string[]) {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdin: Readable.from([]),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
  };
  const exitCode = await runCli(argv, io);
  return { stdout, stderr, exitCode };
}

const failed = (stderr: string) => ({ stdout: "", stderr, exitCode: 1 });

describe("runCli", () => {
  it("every command prints its usage with --help and -h, and is listed in the top-level help", async () => {
    const top = await inProcess(["--help"]);
    expect(top.exitCode).toBe(0);
    for (const command of COMMANDS) {
      for (const flag of ["--help", "-h"]) {
        expect(await inProcess([command.name, flag])).toEqual({
          stdout: command.usage,
          stderr: "",
          exitCode: 0,
        });
      }
      expect(command.usage.startsWith(`Usage: atrium-palace ${command.name}`)).toBe(true);
      expect(top.stdout).toContain(`  ${command.synopsis}`);
    }
    expect(COMMANDS.map((command) => command.name)).toEqual([
      "init",
      "mine",
      "search",
      "wake-up",
      "status",
      "kg",
      "export",
      "import",
      "repair",
      "mcp",
      "hook",
      "bench",
    ]);
  });

  it("a usage error names the problem and the command's --help; exit 1", async () => {
    expect(await inProcess(["mine", "x", "--mode", "chats", "--wing", "w"])).toEqual(
      failed(
        'atrium-palace mine: --mode must be one of convos, project, got "chats" (see atrium-palace mine --help)\n',
      ),
    );
    expect(await inProcess(["mine", "x", "--mode", "convos"])).toEqual(
      failed(
        "atrium-palace mine: --wing is required: the wing to file into (see atrium-palace mine --help)\n",
      ),
    );
    expect(await inProcess(["mine", "x", "--mode", "project", "--wing", "w", "--chunking", "turn"])).toEqual(
      failed(
        "atrium-palace mine: --format and --chunking apply only with --mode convos (see atrium-palace mine --help)\n",
      ),
    );
    expect(await inProcess(["search"])).toEqual(
      failed("atrium-palace search: missing the query (see atrium-palace search --help)\n"),
    );
    expect(await inProcess(["search", "x", "-k", "ten"])).toEqual(
      failed(
        'atrium-palace search: --k must be a whole number from 1 to 9007199254740991, got "ten" (see atrium-palace search --help)\n',
      ),
    );
    expect(await inProcess(["search", "x", "--colour", "red"])).toEqual(
      failed("atrium-palace search: Unknown option '--colour' (see atrium-palace search --help)\n"),
    );
    expect(await inProcess(["kg", "invalidate", "a", "b"])).toEqual(
      failed(
        "atrium-palace kg: give <fact-id>, or <subject> <predicate> <object> (see atrium-palace kg --help)\n",
      ),
    );
    expect(await inProcess(["kg", "forget"])).toEqual(
      failed(
        "atrium-palace kg: unknown subcommand 'forget': use query, add, invalidate, timeline or stats (see atrium-palace kg --help)\n",
      ),
    );
    expect(await inProcess(["kg", "add", "a", "b", "c", "--confidence", "2"])).toEqual(
      failed(
        'atrium-palace kg: --confidence must be a number from 0 to 1, got "2" (see atrium-palace kg --help)\n',
      ),
    );
    expect(await inProcess(["repair", "--embedding", "hashing"])).toEqual(
      failed(
        "atrium-palace repair: --embedding applies only with --reembed (switching embeddings re-embeds every drawer) (see atrium-palace repair --help)\n",
      ),
    );
    expect(await inProcess(["mcp", "--http"])).toEqual(
      failed(
        "atrium-palace mcp: --http needs --tokens-file FILE (the bearer tokens allowed in) or --no-auth (anyone who can reach the port; loopback only) (see atrium-palace mcp --help)\n",
      ),
    );
    expect(await inProcess(["mcp", "--http", "--no-auth", "--host", "0.0.0.0"])).toEqual(
      failed(
        "atrium-palace mcp: --no-auth serves anyone who reaches the port, so it is refused on --host 0.0.0.0; use a loopback host or --tokens-file (see atrium-palace mcp --help)\n",
      ),
    );
    expect(await inProcess(["mcp", "--port", "80"])).toEqual(
      failed(
        "atrium-palace mcp: --tokens-file, --no-auth, --port and --host apply only with --http (see atrium-palace mcp --help)\n",
      ),
    );
    expect(await inProcess(["bench", "squad", "x"])).toEqual(
      failed("atrium-palace bench: unknown benchmark 'squad': use locomo (see atrium-palace bench --help)\n"),
    );
    expect(await inProcess(["hook", "cursor"])).toEqual(
      failed("atrium-palace hook: unknown agent 'cursor': use claude-code (see atrium-palace hook --help)\n"),
    );
    expect(await inProcess(["frobnicate"])).toEqual(
      failed("atrium-palace: unknown command 'frobnicate'; run atrium-palace --help for the list\n"),
    );
    const bare = await inProcess([]);
    expect(bare.exitCode).toBe(1);
    expect(bare.stderr.startsWith("Usage: atrium-palace <command> [options]\n")).toBe(true);
  });
});
