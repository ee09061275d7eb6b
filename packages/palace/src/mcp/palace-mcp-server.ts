import {
  type McpHttpAuth,
  type ServedMcp,
  type ServedMcpHttp,
  type ServeMcpHttpOptions,
  type StdioStreams,
  serveMcp,
  serveMcpHttp,
} from "@atrium/mcp";
import type { Tool } from "@atrium/spec";
import type { Palace } from "../palace.js";
import { diaryTools } from "./diary-tools.js";
import { drawerTools } from "./drawer-tools.js";
import { knowledgeGraphTools } from "./kg-tools.js";
import { searchTools } from "./search-tools.js";
import { taxonomyTools } from "./taxonomy-tools.js";
import { tunnelTools } from "./tunnel-tools.js";
import { wakeUpTool } from "./wake-up-tool.js";

export interface PalaceMcpOptions {
  palace: Palace;
  /** Server name shown to clients (default "atrium-palace"). */
  name?: string;
}

export interface PalaceMcpHttpOptions extends PalaceMcpOptions {
  port?: number;
  host?: string;
  /** Who may connect (`loadTokensFile` from @atrium/mcp); without it only loopback hosts are allowed. */
  auth?: McpHttpAuth;
  health?: ServeMcpHttpOptions["health"];
}

const VERSION = "0.1.0";

const INSTRUCTIONS =
  "A memory palace: verbatim memories (drawers) filed in wings (people, projects) and rooms (topics), " +
  "a temporal knowledge graph of facts, tunnels between rooms, and agents' diaries. Call wake_up first; " +
  "search before answering from memory; check_duplicate before add_drawer; record lasting facts with kg_add.";

/** Every tool the palace serves, in the order clients list them. */
export function palaceMcpTools(palace: Palace): Tool[] {
  return [
    ...taxonomyTools(palace),
    ...searchTools(palace),
    ...drawerTools(palace),
    ...knowledgeGraphTools(palace.kg),
    ...tunnelTools(palace),
    ...diaryTools(palace),
    wakeUpTool(palace),
  ];
}

/** Serves the palace over stdio (what MCP hosts launch). The palace stays open; close it after `closed`. */
export function servePalaceMcp(options: PalaceMcpOptions, streams?: StdioStreams): Promise<ServedMcp> {
  return serveMcp(
    {
      name: options.name ?? "atrium-palace",
      version: VERSION,
      instructions: INSTRUCTIONS,
      tools: palaceMcpTools(options.palace),
    },
    streams,
  );
}

/** Serves the palace over streamable HTTP on `port` (0: a free one), loopback by default. */
export function servePalaceMcpHttp(options: PalaceMcpHttpOptions): Promise<ServedMcpHttp> {
  return serveMcpHttp({
    name: options.name ?? "atrium-palace",
    version: VERSION,
    instructions: INSTRUCTIONS,
    tools: palaceMcpTools(options.palace),
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.auth === undefined ? {} : { auth: options.auth }),
    ...(options.health === undefined ? {} : { health: options.health }),
  });
}
