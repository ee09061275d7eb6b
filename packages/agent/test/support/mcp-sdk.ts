// The official MCP SDK's client, for tests that need a client this package does not have (one
// that declares elicitation). @atrium/agent does not depend on the SDK, so it is loaded from
// @atrium/mcp's dependencies; only the few members the tests use are typed here.
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { packageDir } from "./cli.js";

const fromMcp = createRequire(join(packageDir, "../mcp/package.json"));
const load = (path: string) =>
  import(pathToFileURL(fromMcp.resolve(`@modelcontextprotocol/sdk/${path}`)).href);

export interface ElicitParams {
  message: string;
  requestedSchema: unknown;
}
export type ElicitAnswer =
  | { action: "accept"; content: Record<string, unknown> }
  | { action: "decline" | "cancel" };

export interface SdkClient {
  connect(transport: unknown): Promise<void>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<{ content: unknown }>;
  close(): Promise<void>;
}

/** An SDK client over streamable HTTP that declares form elicitation and answers every question with `answer`. */
export async function elicitingHttpClient(url: string, answer: ElicitAnswer) {
  const [{ Client }, { StreamableHTTPClientTransport }, { ElicitRequestSchema }] = await Promise.all([
    load("client/index.js"),
    load("client/streamableHttp.js"),
    load("types.js"),
  ]);
  const asked: ElicitParams[] = [];
  const client: SdkClient & {
    setRequestHandler(schema: unknown, handler: (request: { params: ElicitParams }) => unknown): void;
  } = new Client(
    { name: "asks-a-person", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params);
    return answer;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, asked };
}
