import { createInterface } from "node:readline";
import { openDocsSession } from "../session/docs-session.js";
import { STORE_USAGE } from "./store-args.js";
import { prepareStoreCommand, type ShellIo } from "./store-command.js";

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
  const prepared = await prepareStoreCommand(
    "sh",
    argv,
    SH_USAGE,
    { command: { type: "string", short: "c" } },
    io,
  );
  if ("exitCode" in prepared) return prepared.exitCode;
  const { values, groups, opened } = prepared;
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
