// Suite (3) of issue 14: the demo assistant connects a real MCP server (server-everything over
// stdio) and its agent calls that server's tool from inside QuickJS, beside the docs tools, in one
// question.
import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ScriptedModel, tool } from "@atrium/agent";
import { serveMcpHttp } from "@atrium/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AnswerEvent,
  type AssistantEvent,
  createAssistant,
  type DocsLibrary,
  openDocsLibrary,
} from "../../apps/demo/src/index.ts";
import { corpusCopy, removeDirs } from "./demo-corpus.js";
import { js, lastText } from "./scripted-steps.js";

const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);

describe("demo assistant × a real MCP server", () => {
  let docsDir: string;
  let dataDir: string;
  let docs: DocsLibrary;

  beforeAll(async () => {
    docsDir = corpusCopy(["cli/preview.mdx"]);
    dataDir = mkdtempSync(join(tmpdir(), "atrium-demo-data-"));
    docs = await openDocsLibrary({ corpusDir: docsDir, dataDir, collection: "docs" });
  }, 60_000);
  afterAll(async () => {
    try {
      await docs?.close();
    } finally {
      removeDirs(docsDir, dataDir);
    }
  });

  it("calls the MCP tool and a docs command in one step, and answers with both", async () => {
    const model = new ScriptedModel([
      js(
        "const port = (await bash({ command: \"grep -oE 'port [0-9]+' /cli/preview.mdx | head -1\" })).stdout.trim();\n" +
          "const sum = await get_sum({ a: 20, b: 22 });\nconsole.log(port + ' | ' + sum);",
      ),
      js('final_answer({ answer: "The preview uses " + port + "; " + sum, sources: ["/cli/preview.mdx"] });'),
    ]);
    const assistant = await createAssistant({
      docs,
      model,
      mcp: { everything: { command: process.execPath, args: [everything, "stdio"] } },
    });
    const events: AssistantEvent[] = [];
    try {
      expect(assistant.toolNames.slice(0, 2)).toEqual(["bash", "search"]);
      expect(assistant.toolNames).toContain("get_sum");
      for await (const event of assistant.ask("Which port does the preview use, and what is 20 + 22?"))
        events.push(event);
    } finally {
      await assistant.close();
    }
    const calls = events.flatMap((e) => (e.type === "tool-call" ? [[e.name, e.input]] : []));
    expect(calls).toEqual([
      ["bash", { command: "grep -oE 'port [0-9]+' /cli/preview.mdx | head -1" }],
      ["get_sum", { a: 20, b: 22 }],
    ]);
    expect(lastText(model.calls[1]!.messages)).toBe(
      "Observation:\nExecution logs:\nport 3000 | The sum of 20 and 22 is 42.",
    );
    const answer = events.at(-1) as AnswerEvent;
    expect(answer).toMatchObject({
      state: "success",
      answer: "The preview uses port 3000; The sum of 20 and 22 is 42.",
      citations: [{ path: "/cli/preview.mdx", verified: true }],
    });
  }, 60_000);

  it("refuses an MCP server whose tool would shadow a docs tool, naming it", async () => {
    const web = tool({
      name: "search",
      description: "Searches the web.",
      inputSchema: z.object({ query: z.string() }),
      execute: async () => "nothing",
    });
    await using server = await serveMcpHttp({ name: "web", version: "1.0.0", tools: [web] });
    await expect(
      createAssistant({ docs, model: new ScriptedModel([]), mcp: { web: { url: server.url } } }),
    ).rejects.toThrow(
      'assistant: mcp: an MCP server offers a tool named "search", which the docs tools use; give that server another name so its tools get a prefix, or leave it out',
    );
  }, 60_000);
});
