import { defineCommand, UsageError } from "@atrium/kit/cli";
import { hashNewToken } from "@atrium/mcp";
import { errorMessage } from "@atrium/spec";

/** `atrium-docs hash-token`: one token from stdin, its hash on stdout. */
export const hashTokenCommand = defineCommand({
  name: "hash-token",
  summary: "the SHA-256 of a bearer token (from stdin) for mcp --tokens-file",
  usage: "",
  description: `Prints the SHA-256 of a bearer token read from stdin (its first line), the form a tokens file
for \`atrium-docs mcp --http --tokens-file FILE\` stores it in:
  {"tokens": {"<sha256 hex>": {"identity": "alice", "groups": ["staff"]}}}
The token is read from stdin, not the command line, so it stays out of shell history and ps.
Make a token with \`openssl rand -hex 32\`; give it to the client as "Authorization: Bearer <token>".`,
  footer: 'Example: printf %s "$TOKEN" | atrium-docs hash-token',
  // Not echoed in a message: an argument here is most likely the token itself.
  positionals: { max: Number.POSITIVE_INFINITY },
  async run({ positionals }, io) {
    if (positionals.length > 0) throw new UsageError("takes no arguments (the token is read from stdin)");
    const token = await firstLine(io.stdin);
    let hash: string;
    try {
      hash = hashNewToken(token);
    } catch (error) {
      // A token too short to be safe: the help says how to make one.
      throw new UsageError(errorMessage(error), { cause: error });
    }
    io.stdout.write(`${hash}\n`);
    return 0;
  },
});

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
