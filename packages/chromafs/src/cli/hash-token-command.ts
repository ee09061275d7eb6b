import { hashNewToken } from "@atrium/mcp";
import { errorMessage } from "@atrium/spec";
import type { ShellIo } from "./store-command.js";

export const HASH_TOKEN_USAGE = `Usage: printf %s "$TOKEN" | atrium-docs hash-token

Prints the SHA-256 of a bearer token read from stdin (its first line), the form a tokens file
for \`atrium-docs mcp --http --tokens-file FILE\` stores it in:
  {"tokens": {"<sha256 hex>": {"identity": "alice", "groups": ["staff"]}}}
The token is read from stdin, not the command line, so it stays out of shell history and ps.
Make a token with \`openssl rand -hex 32\`; give it to the client as "Authorization: Bearer <token>".
`;

/** `atrium-docs hash-token`: one token from stdin, its hash on stdout. */
export async function runHashTokenCommand(argv: string[], io: ShellIo): Promise<number> {
  if (argv.includes("-h") || argv.includes("--help")) {
    io.stdout.write(HASH_TOKEN_USAGE);
    return 0;
  }
  if (argv.length > 0) {
    io.stderr.write(
      `atrium-docs hash-token: takes no arguments (the token is read from stdin)\n\n${HASH_TOKEN_USAGE}`,
    );
    return 2;
  }
  const token = await firstLine(io.stdin);
  try {
    io.stdout.write(`${hashNewToken(token)}\n`);
    return 0;
  } catch (error) {
    io.stderr.write(`atrium-docs hash-token: ${errorMessage(error)}\n`);
    return 2;
  }
}

/** The first line of a stream (without its line break), read no further than it needs. */
async function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of stream) {
    text += chunk.toString();
    const end = text.indexOf("\n");
    if (end !== -1) return text.slice(0, end).replace(/\r$/, "");
  }
  return text;
}
