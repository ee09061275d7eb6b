import { readFileSync } from "node:fs";
import { Readable } from "node:stream";
import { runCli } from "@atrium/kit/cli";
import { describe, expect, it } from "vitest";
import { PALACE_CLI } from "./palace-cli.js";

/** Runs a command line in this process (for what never opens a palace: help and usage errors). */
async function inProcess(argv: string[]) {
  let stdout = "";
  let stderr = "";
  const exitCode = await runCli(PALACE_CLI, argv, {
    stdin: Readable.from([]),
    stdout: { write: (text: string | Uint8Array) => (stdout += String(text)) },
    stderr: { write: (text: string | Uint8Array) => (stderr += String(text)) },
    env: {},
  });
  return { stdout, stderr, exitCode };
}

const usage = (stderr: string, exitCode = 2) => ({ stdout: "", stderr, exitCode });
const COMMANDS = "init, mine, search, wake-up, status, kg, export, import, repair, mcp, hook or bench";

describe("atrium-palace's command line", () => {
  it("every command prints its help with --help and -h, and is listed in the top-level help", async () => {
    const top = await inProcess(["--help"]);
    expect(top.exitCode).toBe(0);
    for (const command of PALACE_CLI.commands) {
      for (const flag of ["--help", "-h"]) {
        const help = await inProcess([command.name, flag]);
        expect(help.exitCode, command.name).toBe(0);
        expect(help.stderr).toBe("");
        expect(help.stdout.startsWith(`Usage: atrium-palace ${command.name}`), command.name).toBe(true);
      }
      expect(top.stdout).toMatch(
        new RegExp(`\\n  ${command.name} +${command.summary.replace(/[()]/g, "\\$&")}\\n`),
      );
    }
    expect(PALACE_CLI.commands.map((command) => command.name).join(", ")).toBe(COMMANDS.replace(" or", ","));
    expect((await inProcess(["kg", "add", "--help"])).stdout).toMatch(
      /^Usage: atrium-palace kg add <subject> <predicate> <object>/,
    );
  });

  it("--version prints the package's version", async () => {
    const manifest = new URL("../../package.json", import.meta.url);
    const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
    expect(await inProcess(["--version"])).toEqual({ stdout: `${version}\n`, stderr: "", exitCode: 0 });
  });

  it("a usage error names the problem and the command's --help; exit 2", async () => {
    expect(await inProcess(["mine", "x", "--mode", "chats", "--wing", "w"])).toEqual(
      usage(
        'atrium-palace mine: --mode must be one of convos, project, got "chats" (see atrium-palace mine --help)\n',
      ),
    );
    expect(await inProcess(["mine", "x", "--mode", "convos"])).toEqual(
      usage(
        "atrium-palace mine: --wing is required: the wing to file into (see atrium-palace mine --help)\n",
      ),
    );
    expect(await inProcess(["mine", "x", "--mode", "project", "--wing", "w", "--chunking", "turn"])).toEqual(
      usage(
        "atrium-palace mine: --format and --chunking apply only with --mode convos (see atrium-palace mine --help)\n",
      ),
    );
    expect(await inProcess(["search"])).toEqual(
      usage("atrium-palace search: missing the query (see atrium-palace search --help)\n"),
    );
    expect(await inProcess(["search", "x", "-k", "ten"])).toEqual(
      usage(
        'atrium-palace search: -k must be a positive whole number, got "ten" (see atrium-palace search --help)\n',
      ),
    );
    expect(await inProcess(["search", "x", "--colour", "red"])).toEqual(
      usage("atrium-palace search: Unknown option '--colour' (see atrium-palace search --help)\n"),
    );
    expect(await inProcess(["kg", "invalidate", "a", "b"])).toEqual(
      usage(
        "atrium-palace kg invalidate: give <fact-id>, or <subject> <predicate> <object> (see atrium-palace kg invalidate --help)\n",
      ),
    );
    expect(await inProcess(["kg", "forget"])).toEqual(
      usage(
        'atrium-palace kg: unknown command "forget": use query, add, invalidate, timeline or stats (see atrium-palace kg --help)\n',
      ),
    );
    expect(await inProcess(["kg", "add", "a", "b", "c", "--confidence", "2"])).toEqual(
      usage(
        'atrium-palace kg add: --confidence must be a number from 0 to 1, got "2" (see atrium-palace kg add --help)\n',
      ),
    );
    expect(await inProcess(["repair", "--embedding", "hashing"])).toEqual(
      usage(
        "atrium-palace repair: --embedding applies only with --reembed (switching embeddings re-embeds every drawer) (see atrium-palace repair --help)\n",
      ),
    );
    expect(await inProcess(["mcp", "--http"])).toEqual(
      usage(
        "atrium-palace mcp: --http needs --tokens-file FILE (the bearer tokens allowed in) or --no-auth (anyone who can reach the port; loopback only) (see atrium-palace mcp --help)\n",
      ),
    );
    expect(await inProcess(["mcp", "--http", "--no-auth", "--host", "0.0.0.0"])).toEqual(
      usage(
        "atrium-palace mcp: --no-auth serves anyone who reaches the port, so it is refused on --host 0.0.0.0; use a loopback host or --tokens-file (see atrium-palace mcp --help)\n",
      ),
    );
    expect(await inProcess(["mcp", "--port", "80"])).toEqual(
      usage(
        "atrium-palace mcp: --tokens-file, --no-auth, --port and --host apply only with --http (see atrium-palace mcp --help)\n",
      ),
    );
    expect(await inProcess(["bench", "squad", "x"])).toEqual(
      usage("atrium-palace bench: unknown benchmark 'squad': use locomo (see atrium-palace bench --help)\n"),
    );
    expect(await inProcess(["frobnicate"])).toEqual(
      usage(`atrium-palace: unknown command "frobnicate": use ${COMMANDS} (see atrium-palace --help)\n`),
    );
    expect(await inProcess([])).toEqual(
      usage(`atrium-palace: missing command: use ${COMMANDS} (see atrium-palace --help)\n`),
    );
  });

  it("the Claude Code hook exits 1 on a usage error too: 2 would block Claude", async () => {
    expect(await inProcess(["hook", "cursor"])).toEqual(
      usage(
        "atrium-palace hook: unknown agent 'cursor': use claude-code (see atrium-palace hook --help)\n",
        1,
      ),
    );
    expect(await inProcess(["hook", "claude-code", "--bogus"])).toEqual(
      usage("atrium-palace hook: Unknown option '--bogus' (see atrium-palace hook --help)\n", 1),
    );
  });
});
