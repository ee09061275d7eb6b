import { createInterface } from "node:readline";
import { type CliIo, defineCommand } from "@atrium/kit/cli";
import { parse } from "just-bash";
import { boundOutput } from "../agent/bounded-output.js";
import { isPosixError } from "../fs/posix-error.js";
import { type ChromafsLimits, resolveChromafsLimits } from "../limits.js";
import { type DocsSession, openDocsSession } from "../session/docs-session.js";
import { openStoreFromArgs, parseGroups, STORE_OPTIONS, storeArgs } from "./store-args.js";

/**
 * `atrium-docs sh …`: exits with the shell's exit code. Each command's stdout and stderr are cut
 * at `maxShellOutputBytes` with a note (a runaway `cat` must not flood the terminal); `limits`
 * overrides it (tests).
 */
export function shCommand(limits: Partial<ChromafsLimits> = {}) {
  const { maxShellOutputBytes } = resolveChromafsLimits(limits);
  return defineCommand({
    name: "sh",
    summary: "a bash shell over the docs (ls, cat, grep, find, search)",
    usage:
      "(--collection <name> [--chroma-url URL | --path DIR] | --dir <folder>) [--groups a,b] [-c '<command>']",
    description:
      "A bash shell over the docs (read-only, writable /tmp). With -c, runs one command, prints exactly\nwhat it prints and exits with its exit code; otherwise reads commands from stdin as bash does\n(a command may span lines; the directory and variables carry over; `exit [N]` ends it).",
    options: {
      ...STORE_OPTIONS,
      groups: {
        type: "string",
        value: "a,b",
        help: "the user's groups (pages of other groups do not exist)",
      },
      command: { type: "string", short: "c", value: "<command>", help: "run one command and exit" },
    },
    async run({ values }, io) {
      const print = (result: { stdout: string; stderr: string }) => {
        io.stdout.write(boundOutput(result.stdout, maxShellOutputBytes));
        io.stderr.write(boundOutput(result.stderr, maxShellOutputBytes));
      };
      const opened = await openStoreFromArgs(storeArgs(values), io.env);
      try {
        const session = await openDocsSession({ store: opened.store, groups: parseGroups(values.groups) });
        if (values.command !== undefined) {
          const result = await session.exec(values.command);
          print(result);
          return result.exitCode;
        }
        return await readCommands(session, io, print);
      } finally {
        await opened.close();
      }
    },
  });
}

/**
 * The read loop: lines are gathered until they form a complete command (as bash's own parser
 * would wait for `done`, a closing quote or a heredoc's end), which then runs. `exit` ends the
 * loop with its status; end of input ends it with the last command's status.
 */
async function readCommands(
  session: DocsSession,
  io: CliIo,
  print: (result: { stdout: string; stderr: string }) => void,
): Promise<number> {
  const interactive = io.stdin.isTTY === true;
  const shell = new InteractiveShell(session);
  const lines = createInterface({ input: io.stdin, terminal: false });
  let pending: string[] = [];
  const prompt = () => interactive && io.stderr.write(pending.length > 0 ? "> " : `docs:${shell.cwd}$ `);
  prompt();
  for await (const line of lines) {
    pending.push(line);
    const source = pending.join("\n");
    if (source.trim() !== "" && isIncomplete(source)) {
      prompt();
      continue;
    }
    pending = [];
    if (source.trim() !== "") {
      const result = await shell.run(source);
      print(result);
      // bash reading a script ends at a syntax error (exit 2); at a terminal it goes on.
      if (result.exited && !(interactive && result.syntaxError)) return result.exitCode;
    }
    prompt();
  }
  if (pending.length === 0) return shell.status;
  // Input ended inside a command: the parser reports what is missing, as bash does.
  const result = await shell.run(pending.join("\n"), { last: true });
  print(result);
  return result.exitCode;
}

/** Set by a line appended to each command: absent afterwards when the command ran `exit`. */
const STATUS_MARK = "__ATRIUM_SH_STATUS";
/** How just-bash ends a message about a command it stopped at a limit (loop count, output size...). */
const EXECUTION_LIMIT = /increase executionLimits\.\w+\n$/;

/**
 * One interactive shell over a session: each command is a just-bash script started with the
 * previous one's variables (exported or not), directory and `$?`.
 */
class InteractiveShell {
  status = 0;
  private env: Record<string, string> | undefined;

  constructor(private readonly session: DocsSession) {}

  get cwd(): string {
    return this.env?.PWD ?? this.session.cwd;
  }

  /** Runs one complete command; `last` (input ended) runs it as it is, without the status line. */
  async run(source: string, { last = false } = {}): Promise<ShellResult> {
    // `(exit N)` restores `$?` (so a bare `exit` or `echo $?` sees the last status) on the
    // command's own first line, keeping bash's line numbers in messages.
    const restore = this.status === 0 ? "" : `(exit ${this.status}); `;
    const script = `${restore}${source}${last ? "" : `\n${STATUS_MARK}=$?`}`;
    const options = this.env ? { env: this.env, replaceEnv: true, cwd: this.cwd } : { cwd: this.cwd };
    let result: Awaited<ReturnType<DocsSession["bash"]["exec"]>>;
    try {
      result = await this.session.bash.exec(script, options);
    } catch (error) {
      // just-bash lets a failed output redirection escape exec; bash prints this and goes on.
      if (!isPosixError(error, "EROFS")) throw error;
      this.status = 1;
      const stderr = `bash: ${error.path}: Read-only file system\n`;
      return { stdout: "", stderr, exitCode: 1, exited: false, syntaxError: false };
    }
    const env: Record<string, string> = { ...result.env };
    const mark = env[STATUS_MARK];
    if (mark === undefined) {
      this.status = result.exitCode;
      // A command stopped by an execution limit did not ask to exit: the shell goes on.
      const exited = !EXECUTION_LIMIT.test(result.stderr);
      return { ...output(result), exitCode: result.exitCode, exited, syntaxError: !parses(source) };
    }
    delete env[STATUS_MARK];
    delete env["?"];
    if (env.PWD && !(await this.session.fs.exists(env.PWD))) env.PWD = this.cwd;
    this.env = env;
    this.status = Number(mark);
    return { ...output(result), exitCode: this.status, exited: false, syntaxError: false };
  }
}

interface ShellResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** The command ended the shell: `exit`, `set -e` and a failure, a fatal expansion error, or a syntax error. */
  exited: boolean;
  syntaxError: boolean;
}

function parses(source: string): boolean {
  try {
    parse(source);
    return true;
  } catch {
    return false;
  }
}

function output(result: { stdout: string; stderr: string }) {
  return { stdout: result.stdout, stderr: result.stderr };
}

/**
 * Whether bash would read another line before running `source`: the parser stops at the end of
 * the input (an open `for`/`if`/`{`/quote/`$(`), the last line ends in `|`, `&&`, `||` or a
 * backslash, or a here-document has not reached its delimiter.
 */
export function isIncomplete(source: string): boolean {
  try {
    parse(source);
  } catch (error) {
    return /\bEOF\b/.test((error as Error).message) || errorAtEnd(source, error);
  }
  if (/(\|\||&&|\||(?<!\\)(?:\\\\)*\\)\s*$/.test(source.replace(/\s+#[^\n'"]*$/, ""))) return true;
  return openHeredoc(source);
}

function errorAtEnd(source: string, error: unknown): boolean {
  const { line, column } = error as { line?: number; column?: number };
  const lines = source.split("\n");
  return line === lines.length && column !== undefined && column > (lines.at(-1) as string).length;
}

const HEREDOC = /(?<!<)<<(?!<)(-?)[ \t]*(["']?)([\w.-]+)\2/g;

function openHeredoc(source: string): boolean {
  const lines = source.split("\n");
  const wanted: { delimiter: string; stripTabs: boolean }[] = [];
  for (const line of lines) {
    const next = wanted[0];
    if (next) {
      if ((next.stripTabs ? line.replace(/^\t+/, "") : line) === next.delimiter) wanted.shift();
      continue;
    }
    for (const match of line.matchAll(HEREDOC)) {
      wanted.push({ delimiter: match[3] as string, stripTabs: match[1] === "-" });
    }
  }
  return wanted.length > 0;
}
