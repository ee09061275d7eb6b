// A CodeAgent served over MCP (streamable HTTP) whose code calls a tool that needs approval:
// the SDK client that called the agent is asked through elicitation, and its answer decides.
import { serveMcpHttp } from "@atrium/mcp";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CodeAgent } from "../src/agents/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { tool } from "../src/tools/index.js";
import { js, track } from "./support/agents.js";
import { type ElicitAnswer, elicitingHttpClient } from "./support/mcp-sdk.js";

/** Serves a janitor agent that tries to remove a.txt, calls it once with `answer`, and says what happened. */
async function callJanitor(answer: ElicitAnswer) {
  const removed: string[] = [];
  const remove = tool({
    name: "remove",
    description: "Removes a file.",
    inputSchema: z.object({ path: z.string() }),
    needsApproval: true,
    execute: ({ path }) => {
      removed.push(path);
      return `removed ${path}`;
    },
  });
  const model = new ScriptedModel([
    js('let r;\ntry { r = await remove({ path: "a.txt" }) } catch (e) { r = e.message }\nfinal_answer(r)'),
  ]);
  const agent = track(
    new CodeAgent({ name: "janitor", description: "Removes files.", model, tools: [remove] }),
  );
  const served = await serveMcpHttp({ name: "janitor", version: "1.0.0", agent });
  const { client, asked } = await elicitingHttpClient(served.url, answer);
  try {
    const result = await client.callTool({ name: "janitor", arguments: { task: "Remove a.txt." } });
    return { answer: (result.content as { text: string }[])[0]!.text, asked, removed };
  } finally {
    await client.close();
    await served.close();
  }
}

describe("a CodeAgent served over MCP asks its client before a call that needs approval", () => {
  it("names the tool and its input; accept with approve: true runs the call", async () => {
    const { answer, asked, removed } = await callJanitor({ action: "accept", content: { approve: true } });
    expect(asked.map(({ message }) => message)).toEqual([
      'The agent wants to run the tool "remove" with {"path":"a.txt"}. Approve it?',
    ]);
    expect(answer).toBe("removed a.txt");
    expect(removed).toEqual(["a.txt"]);
  });

  it("decline refuses it: the agent's code gets the reason, the tool never runs", async () => {
    const { answer, removed } = await callJanitor({ action: "decline" });
    expect(answer).toBe('Tool "remove" was not approved: the MCP client\'s user declined');
    expect(removed).toEqual([]);
  });
});
