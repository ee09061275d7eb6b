// An agent served as an MCP tool asks the client that called it about a call that needs
// approval, through MCP elicitation: real SDK clients over streamable HTTP and stdio, some that
// declare elicitation and answer, one that does not.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import {
  CLIENT_CANNOT_ELICIT,
  JSON_RESPONSES_CANNOT_ELICIT,
  type ServeAgentOptions,
  type ServeMcpHttpOptions,
  serveMcpHttp,
} from "../src/index.js";
import { deletingAgent } from "./fixtures/deleting-agent.js";
import { fixtureServer, removeBundles } from "./servers.js";

afterAll(removeBundles);

/** A client that declares form elicitation and answers each question with `answer`, noting the questions. */
async function elicitingClient(transport: Transport, answer: ElicitResult) {
  const asked: ElicitRequest["params"][] = [];
  const client = new Client(
    { name: "asks-a-person", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params);
    return answer;
  });
  await client.connect(transport);
  return { client, asked };
}

/** The text of the agent tool's answer to the task "a.txt". */
async function callJanitor(client: Client): Promise<string> {
  const result = await client.callTool({ name: "janitor", arguments: { task: "a.txt" } });
  const [first] = result.content as { type: string; text: string }[];
  return first!.text;
}

const QUESTION = {
  mode: "form",
  message: 'The agent wants to run the tool "delete_file" with {"name":"a.txt"}. Approve it?',
  requestedSchema: {
    type: "object",
    properties: {
      approve: { type: "boolean", title: "Approve", description: "Run delete_file with the input shown" },
      reason: { type: "string", title: "Reason", description: "Why not (optional; the agent is told)" },
    },
    required: ["approve"],
  },
};

describe("an agent served over streamable HTTP asks its client", () => {
  /** Serves the janitor (with `serving` options), calls it from a client answering `answer`. */
  async function askedOverHttp(
    answer: ElicitResult,
    serving: Partial<ServeAgentOptions & ServeMcpHttpOptions> = {},
  ) {
    const served = await serveMcpHttp({
      name: "janitor",
      version: "1.0.0",
      agent: deletingAgent(),
      ...serving,
    });
    const { client, asked } = await elicitingClient(
      new StreamableHTTPClientTransport(new URL(served.url)),
      answer,
    );
    try {
      return { text: await callJanitor(client), asked };
    } finally {
      await client.close();
      await served.close();
    }
  }
  const APPROVING: ElicitResult = { action: "accept", content: { approve: true } };

  it("with elicitation/create naming the tool and its input; accept with approve: true runs the call", async () => {
    const { text, asked } = await askedOverHttp(APPROVING);
    expect(asked).toEqual([QUESTION]);
    expect(text).toBe("deleted a.txt");
  });

  it("accept with approve: false refuses, with the reason typed", async () => {
    const { text } = await askedOverHttp({
      action: "accept",
      content: { approve: false, reason: "keep it" },
    });
    expect(text).toBe("kept a.txt: the MCP client's user said no: keep it");
  });

  it("decline and cancel refuse, saying which", async () => {
    expect((await askedOverHttp({ action: "decline" })).text).toBe(
      "kept a.txt: the MCP client's user declined",
    );
    expect((await askedOverHttp({ action: "cancel" })).text).toBe(
      "kept a.txt: the MCP client's user dismissed the question without answering",
    );
  });

  it("a client without the elicitation capability is not asked: the call is refused, saying so", async () => {
    const served = await serveMcpHttp({ name: "janitor", version: "1.0.0", agent: deletingAgent() });
    const client = new Client({ name: "no-person", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    try {
      expect(await callJanitor(client)).toBe(`kept a.txt: ${CLIENT_CANNOT_ELICIT}`);
      expect(CLIENT_CANNOT_ELICIT).toBe(
        "the MCP client cannot be asked: it did not declare the elicitation capability (form mode), so calls that need approval are refused",
      );
    } finally {
      await client.close();
      await served.close();
    }
  });

  it("a server answering in plain JSON cannot ask: the call is refused at once, saying why", async () => {
    const { text, asked } = await askedOverHttp(APPROVING, { jsonResponse: true });
    expect(text).toBe(`kept a.txt: ${JSON_RESPONSES_CANNOT_ELICIT}`);
    expect(asked).toEqual([]);
  });

  it("the server's own onApproval answers instead, and the client is never asked", async () => {
    const { text, asked } = await askedOverHttp(APPROVING, {
      onApproval: () => ({ approved: false, reason: "this server deletes nothing" }),
    });
    expect(text).toBe("kept a.txt: this server deletes nothing");
    expect(asked).toEqual([]);
  });
});

describe("an agent served over stdio asks its client", () => {
  it("the same question on the one stream; the answer decides", async () => {
    const { command, args } = fixtureServer("serve-deleting-agent.ts");
    const { client, asked } = await elicitingClient(new StdioClientTransport({ command, args }), {
      action: "accept",
      content: { approve: true },
    });
    try {
      expect(await callJanitor(client)).toBe("deleted a.txt");
      expect(asked).toEqual([QUESTION]);
    } finally {
      await client.close();
    }
  });
});
