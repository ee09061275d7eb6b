import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { openDocsSession } from "../session/docs-session.js";
import { openStoreFromArgs, STORE_OPTIONS, STORE_USAGE, storeArgs } from "./store-args.js";

export interface ShellIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

export const SH_USAGE = `Usage: atrium-docs sh (--collection <name> [--chroma-url URL | --path DIR] | --dir <folder>) [--groups a,b] [-c '<command>']

A bash shell over the docs (read-only, writable /tmp). With -c, runs one command, prints exactly
what it prints and exits with its exit code; otherwise reads commands line by line from stdin.

${STORE_USAGE}
  --groups a,b          the user's groups (pages of other groups do not exist)
  -c <command>          run one command and exit
  -h, --help            show this help
`;

/** `atrium-docs sh …`; resolves with the process exit code. */
export async function runShCommand(argv: string[], io: ShellIo): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        ...STORE_OPTIONS,
        groups: { type: "string" },
        command: { type: "string", short: "c" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    io.stderr.write(`atrium-docs sh: ${(error as Error).message}\n\n${SH_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(SH_USAGE);
    return 0;
  }
  const groups = typeof values.groups === "string" ? values.groups.split(",").filter(Boolean) : [];
  let opened: Awaited<ReturnType<typeof openStoreFromArgs>>;
  try {
    opened = await openStoreFromArgs(storeArgs(values));
  } catch (error) {
    io.stderr.write(`atrium-docs sh: ${(error as Error).message}\n`);
    return 2;
  }
  try {
    const session = await openDocsSession({ store: opened.store, groups });
    if (typeof values.command === "string") {
      const result = await session.exec(values.command);
      io.stdout.write(result.stdout);
      io.stderr.write(result.stderr);
      return result.exitCode;
    }
    const interactive = io.stdin.isTTY === true;
    const lines = createInterface({ input: io.stdin, terminal: false });
    const prompt = () => interactive && io.stderr.write(`docs:${session.cwd}$ `);
    let exitCode = 0;
    prompt();
    for await (const line of lines) {
      if (line.trim() === "exit") break;
      if (line.trim() !== "") {
        const result = await session.exec(line);
        io.stdout.write(result.stdout);
        io.stderr.write(result.stderr);
        exitCode = result.exitCode;
      }
      prompt();
    }
    return exitCode;
  } catch (error) {
    io.stderr.write(`atrium-docs sh: ${(error as Error).message}\n`);
    return 2;
  } finally {
    await opened.close();
  }
}
