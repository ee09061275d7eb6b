// A CodeAgent whose code runs in Python in WebAssembly (@atrium/python): the agent contract's
// scenarios, a tool call answered from Python, a model that writes JavaScript to the Python
// sandbox, and the docs question of docs-agent.test.ts (ChromaFs on a real Chroma server)
// answered in Python. The model is scripted; everything else is real.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CodeAgent, ScriptedModel, tool } from "@atrium/agent";
import { type ChromaServer, startChromaServer } from "@atrium/chroma";
import { ChromaDocStore, docsBashTool, docsSearchTool, ingestDocs, openDocsSession } from "@atrium/chromafs";
import { drainPythonWorkers, PythonExecutor, pythonExecutorFactory } from "@atrium/python";
import type { Message } from "@atrium/spec";
import { agentContract, describeContract } from "@atrium/spec/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { lastText } from "./scripted-steps.js";

/** One scripted CodeAgent reply: a thought and a Python block, as a model would write it. */
const py = (code: string) => `Thought: next.\n\`\`\`py\n${code}\n\`\`\``;
const stepOf = (messages: Message[]) => messages.filter((message) => message.role === "assistant").length + 1;

const add = tool({
  name: "add",
  description: "Adds two numbers.",
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => a + b,
});

beforeAll(() => PythonExecutor.prewarm(1), 180_000);
afterAll(() => drainPythonWorkers());

// The scenarios every Agent promises, with the sandbox in Python.
describeContract(
  agentContract(
    async () =>
      new CodeAgent({
        name: "pycoder",
        description: "Adds numbers in Python.",
        tools: [add],
        executor: pythonExecutorFactory(),
        model: new ScriptedModel((messages) =>
          stepOf(messages) === 1
            ? py("total = add(a=2, b=3)\nprint(total)")
            : py('final_answer({"city": "Lisbon", "sum": total})'),
        ),
      }),
    {
      task: "Add 2 and 3, then say where the marathon is.",
      output: { city: "Lisbon", sum: 5 },
      timeoutMs: 120_000,
    },
  ),
  180_000,
);

describe("CodeAgent × Python in WebAssembly", () => {
  const agents: CodeAgent[] = [];
  afterAll(() => Promise.allSettled(agents.map((agent) => agent.close())));
  const agentWith = (model: ScriptedModel, tools: CodeAgent["tools"][number][]) => {
    const agent = new CodeAgent({ model, tools, executor: pythonExecutorFactory() });
    agents.push(agent);
    return agent;
  };

  it("answers with a tool call made from Python, and the prompt speaks Python", async () => {
    const model = new ScriptedModel([py("r = add(2, b=40)\nprint('sum is', r)"), py("final_answer(r)")]);
    const result = await agentWith(model, [add]).run("What is 2 + 40?");
    expect(result.state).toBe("success");
    expect(result.output).toBe(42);
    expect(lastText(model.calls[1]!.messages)).toBe("Observation:\nExecution logs:\nsum is 42");
    const system = model.calls[0]!.messages[0]!;
    expect(typeof system.content === "string" ? system.content : "").toContain(
      'def add(a: float, b: float) -> Any:\n    """\n    Adds two numbers.\n    """',
    );
  }, 180_000);

  it("tells a model that wrote JavaScript that the sandbox runs Python", async () => {
    const model = new ScriptedModel([
      py("const r = await add({ a: 1, b: 2 });\nconsole.log(r);"),
      py("final_answer(add(a=1, b=2))"),
    ]);
    const result = await agentWith(model, [add]).run("Add 1 and 2.");
    expect(result.output).toBe(3);
    expect(lastText(model.calls[1]!.messages)).toBe(
      [
        "Observation:",
        "Syntax error on line 1: const r = await add({ a: 1, b: 2 });",
        "SyntaxError: invalid syntax. This looks like JavaScript, but this sandbox runs Python. Write Python: no const/let/await, call tools as functions with keyword arguments (result = tool_name(field=value)), print with print(...).",
        "Fix the code and try again; do not repeat the same mistake.",
      ].join("\n"),
    );
  }, 180_000);

  describe("the docs question of docs-agent.test.ts, in Python", () => {
    const CORPUS = fileURLToPath(new URL("../../fixtures/corpora/mintlify-docs", import.meta.url));
    const PAGES = ["index.mdx", "deploy/ci.mdx", "deploy/self-host.mdx"];
    let docsDir: string;
    let dataDir: string;
    let server: ChromaServer;
    let store: ChromaDocStore;

    beforeAll(async () => {
      docsDir = mkdtempSync(join(tmpdir(), "atrium-e2e-pydocs-"));
      for (const page of PAGES) {
        mkdirSync(dirname(join(docsDir, page)), { recursive: true });
        cpSync(join(CORPUS, page), join(docsDir, page));
      }
      dataDir = mkdtempSync(join(tmpdir(), "atrium-e2e-pychroma-"));
      server = await startChromaServer({ path: dataDir });
      await ingestDocs({ dir: docsDir, collection: "docs", url: server.url });
      store = await ChromaDocStore.open({ url: server.url, collection: "docs" });
    }, 60_000);
    afterAll(async () => {
      try {
        await server?.stop();
      } finally {
        for (const dir of [dataDir, docsDir]) if (dir) rmSync(dir, { recursive: true, force: true });
      }
    });

    it("greps and reads pages with the bash tool called from Python", async () => {
      const session = await openDocsSession({ store });
      try {
        const model = new ScriptedModel([
          py(
            'found = bash(command="grep -rl Kubernetes / | sort")\nprint(found["stdout"] + "exit " + str(found["exitCode"]))',
          ),
          py(
            'head = bash(command="head -3 /deploy/ci.mdx")\nfinal_answer({"head": head["stdout"], "exit": head["exitCode"]})',
          ),
        ]);
        const result = await agentWith(model, [
          docsBashTool(session),
          docsSearchTool(store, session.access),
        ]).run("Which pages mention Kubernetes, and how does the CI page start?");
        expect(result.state).toBe("success");
        expect(lastText(model.calls[1]!.messages)).toBe(
          "Observation:\nExecution logs:\n/deploy/ci.mdx\n/deploy/self-host.mdx\nexit 0",
        );
        const ci = readFileSync(join(CORPUS, "deploy/ci.mdx"), "utf8");
        expect(result.output).toEqual({ head: `${ci.split("\n").slice(0, 3).join("\n")}\n`, exit: 0 });
      } finally {
        await session.close();
      }
    }, 180_000);
  });
});
