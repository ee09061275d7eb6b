import {
  type McpHttpAuth,
  type McpIdentity,
  type ServedMcp,
  type ServedMcpHttp,
  type ServeMcpHttpOptions,
  type StdioStreams,
  serveMcp,
  serveMcpHttp,
} from "@atrium/mcp";
import { ConfigError, errorMessage } from "@atrium/spec";
import { PalaceAccess } from "../access/palace-access.js";
import type { PalaceGrants } from "../access/palace-grants.js";
import type { Palace } from "../palace.js";
import { palaceTools } from "../tools/palace-tools.js";
import type { PalaceTool } from "../tools/tool-annotations.js";
import { PalaceView } from "../view/palace-view.js";

export interface PalaceMcpOptions {
  palace: Palace;
  /** Server name shown to clients (default "atrium-palace"). */
  name?: string;
  /**
   * What the one client of a server without authentication (stdio, or HTTP with no `auth`) may
   * do. Default: everything, as the palace's owner (a stdio server runs as the user who owns
   * the palace's files). Over HTTP with `auth`, each token's own grants decide instead.
   */
  access?: PalaceAccess | PalaceGrants;
}

export interface PalaceMcpHttpOptions extends PalaceMcpOptions {
  port?: number;
  host?: string;
  /**
   * Who may connect (`loadTokensFile` from @atrium/mcp): each session sees what its token's
   * `grants` allow ({"read": [wings], "write": [wings]} or {"admin": true}); a token without
   * grants sees nothing. Without it only loopback hosts are allowed and `access` applies.
   */
  auth?: McpHttpAuth;
  /** Sessions one identity may hold at once (default 16). */
  maxSessionsPerIdentity?: number;
  health?: ServeMcpHttpOptions["health"];
}

const VERSION = "0.1.0";

/** HTTP sessions one identity may hold: its own memories' worth, never every slot of the server. */
export const PALACE_SESSIONS_PER_IDENTITY = 16;

const INSTRUCTIONS =
  "A memory palace: verbatim memories (drawers) filed in wings (people, projects) and rooms (topics), " +
  "a temporal knowledge graph of facts, tunnels between rooms, and agents' diaries. Call wake_up first; " +
  "search before answering from memory; check_duplicate before add_drawer; record lasting facts with kg_add.";

/** The view of the one client of a server without authentication. */
function ownerView(options: PalaceMcpOptions): PalaceView {
  const access = options.access ?? PalaceAccess.ADMIN;
  return new PalaceView(options.palace, access, "the local client");
}

/**
 * The view a token's identity gets: its `grants`, checked. A token without grants gets a view
 * of nothing; an identity with bad grants is refused (its session does not open).
 */
export function identityView(palace: Palace, identity: McpIdentity): PalaceView {
  return new PalaceView(palace, PalaceAccess.of((identity.grants ?? {}) as PalaceGrants, identity.name));
}

/**
 * Checks every identity's grants in a tokens file, so a mistake fails at start with the
 * identity's name, not at its first session.
 */
export function checkTokenGrants(identities: readonly McpIdentity[]): void {
  for (const identity of identities) {
    try {
      PalaceAccess.of((identity.grants ?? {}) as PalaceGrants, identity.name);
    } catch (error) {
      throw new ConfigError(`tokens file: ${errorMessage(error)}`, { cause: error });
    }
  }
}

/** Serves the palace over stdio (what MCP hosts launch). The palace stays open; close it after `closed`. */
export function servePalaceMcp(options: PalaceMcpOptions, streams?: StdioStreams): Promise<ServedMcp> {
  return serveMcp(
    {
      name: options.name ?? "atrium-palace",
      version: VERSION,
      instructions: INSTRUCTIONS,
      ...servedTools(palaceTools(ownerView(options))),
    },
    streams,
  );
}

/**
 * Serves the palace over streamable HTTP on `port` (0: a free one), loopback by default. With
 * `auth`, every session gets the tools of its token's view; without, the one `access` view.
 */
export function servePalaceMcpHttp(options: PalaceMcpHttpOptions): Promise<ServedMcpHttp> {
  const { auth } = options;
  const shared = {
    name: options.name ?? "atrium-palace",
    version: VERSION,
    instructions: INSTRUCTIONS,
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.health === undefined ? {} : { health: options.health }),
    maxSessionsPerIdentity: options.maxSessionsPerIdentity ?? PALACE_SESSIONS_PER_IDENTITY,
  };
  if (auth === undefined) return serveMcpHttp({ ...shared, ...servedTools(palaceTools(ownerView(options))) });
  if (options.access !== undefined) {
    throw new ConfigError(
      "servePalaceMcpHttp: give auth (each token's grants) or access (one client), not both",
    );
  }
  return serveMcpHttp({
    ...shared,
    auth,
    openSession(identity) {
      if (identity === undefined) throw new ConfigError("an authenticated palace session needs an identity");
      return { tools: palaceTools(identityView(options.palace, identity)) };
    },
  });
}

/** A tool set as the server options take it (@atrium/mcp lists each tool's annotations). */
function servedTools(tools: readonly PalaceTool[]) {
  return { tools };
}
