import { defineCommand, integerOption, UsageError } from "@atrium/kit/cli";
import { loadTokensFile, MCP_HTTP_CLI_OPTIONS, mcpHttpOptionsProblem, type TokensAuth } from "@atrium/mcp";
import type { PalaceGrants } from "../access/palace-grants.js";
import { checkTokenGrants, servePalaceMcp, servePalaceMcpHttp } from "../mcp/palace-mcp-server.js";
import { PALACE_OPTION, withPalace } from "./palace-option.js";

export const mcpCommand = defineCommand({
  name: "mcp",
  summary: "serve the palace over MCP (stdio or HTTP)",
  usage: [
    "[--palace DIR] [--admin | --read WING... --write WING...]",
    "--http --tokens-file FILE [--port N] [--host H]",
    "--http --no-auth (--admin | --read WING... --write WING...) [--port N]",
  ],
  description: `Serves the palace as an MCP server: status, list_wings, list_rooms, get_taxonomy, search,
check_duplicate, add/get/list/update/delete_drawer, kg_query/add/invalidate/timeline/stats,
traverse, find/create/list/delete/follow_tunnels, diary_write/read, wake_up. Over stdio by default (what MCP hosts launch). --http serves streamable HTTP and prints
the endpoint URL; each client needs a bearer token from --tokens-file, or with --no-auth anyone
who reaches the port may connect (loopback only). GET /health (same authentication) answers 200
while the palace's store answers, else 503. SIGTERM or Ctrl-C stops taking requests, lets
calls in flight finish (up to 10 s), then exits.

Access: each token in the tokens file carries its grants; a token without grants sees nothing.
Over stdio the one client is you (every wing, unless --read/--write narrow it); with --no-auth
say what the client may do: --admin, or --read and --write naming wings.`,
  options: {
    ...PALACE_OPTION,
    ...MCP_HTTP_CLI_OPTIONS,
    "tokens-file": {
      type: "string",
      value: "FILE",
      help: 'bearer tokens allowed over HTTP, stored hashed (atrium-docs hash-token),\neach with its grants on wings:\n{"tokens": {"<sha256 hex>": {"identity": "alice",\n  "grants": {"read": ["alice", "team"], "write": ["alice"]}}}}\n({"admin": true} grants every wing)',
    },
    admin: { type: "boolean", help: "the client may read and write every wing" },
    read: {
      type: "string",
      multiple: true,
      value: "WING",
      help: "the client may read WING (repeat for more)",
    },
    write: {
      type: "string",
      multiple: true,
      value: "WING",
      help: "the client may write WING (repeat for more)",
    },
  },
  async run({ values }, io) {
    const http = values.http === true;
    const tokensFile = values["tokens-file"];
    const noAuth = values["no-auth"] === true;
    const { host } = values;
    const port = integerOption(values.port, "--port", { min: 0, max: 65_535 });
    const problem = mcpHttpOptionsProblem(values);
    if (problem !== undefined) throw new UsageError(problem);
    const grants = grantsOption(values);
    if (tokensFile !== undefined && grants !== undefined) {
      throw new UsageError(
        "--admin, --read and --write are for one client; with --tokens-file each token carries its grants",
      );
    }
    if (noAuth && grants === undefined) {
      throw new UsageError(
        "--no-auth needs the client's grants: --admin (every wing) or --read/--write WING; a tokens file gives each token its own",
      );
    }
    // Read before the palace opens, so a bad file fails fast.
    const auth: TokensAuth | undefined = tokensFile === undefined ? undefined : loadTokensFile(tokensFile);
    if (auth) checkTokenGrants(auth.identities());
    await withPalace(values, io.env, {}, async (palace) => {
      if (!http) {
        const served = await servePalaceMcp({ palace, ...(grants === undefined ? {} : { access: grants }) });
        await served.closed;
        return;
      }
      const served = await servePalaceMcpHttp({
        palace,
        ...(port === undefined ? {} : { port }),
        ...(host === undefined ? {} : { host }),
        ...(auth === undefined ? {} : { auth }),
        ...(grants === undefined ? {} : { access: grants }),
        // For a load balancer's checks: 503 while the palace's store does not answer. Nothing
        // about its content or where it lives (any token may ask).
        health: async () => {
          try {
            await palace.status();
            return { ok: true };
          } catch {
            return { ok: false, reason: "the palace's store does not answer" };
          }
        },
      });
      io.stdout.write(`${served.url}\n`);
      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      await served.close(); // lets calls in flight finish, answers the rest
    });
    return 0;
  },
});

/** --admin, --read, --write as grants; undefined when none is given. */
function grantsOption(values: {
  admin?: boolean;
  read?: string[];
  write?: string[];
}): PalaceGrants | undefined {
  const read = values.read ?? [];
  const write = values.write ?? [];
  const admin = values.admin === true;
  if (!admin && read.length === 0 && write.length === 0) return undefined;
  if (admin && read.length + write.length > 0) {
    throw new UsageError("--admin grants every wing already; leave out --read and --write");
  }
  return admin ? { admin: true } : { read, write };
}
