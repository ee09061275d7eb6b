// A CodeAgent reads documentation through ChromaFs: docs ingested into a real Chroma server, the
// agent's code (real QuickJS) calls the `bash` and `search` tools of a docs session, in process
// and through `atrium-docs mcp` over stdio, and a restricted page never reaches it.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CodeAgent, QuickJsExecutor, ScriptedModel } from "@atrium/agent";
import { type ChromaServer, startChromaServer } from "@atrium/chroma";
import {
  ChromaDocStore,
  type DocsSession,
  docsBashTool,
  docsSearchTool,
  ingestDocs,
  openDocsSession,
} from "@atrium/chromafs";
import { connectMcpServers, type McpConnection } from "@atrium/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliArgs } from "../test-target.ts";
import { js, lastText } from "./scripted-steps.js";

const CORPUS = fileURLToPath(new URL("../../fixtures/corpora/mintlify-docs", import.meta.url));
const CHROMAFS_DIR = fileURLToPath(new URL("../../packages/chromafs", import.meta.url));
const PAGES = ["index.mdx", "deploy/ci.mdx", "deploy/self-host.mdx", "zh/index.mdx"];
const SECRET = "---\ngroups: [staff]\n---\n# Incident runbook\nPage the Kubernetes on-call.\n";

describe("CodeAgent × ChromaFs", () => {
  let docsDir: string;
  let dataDir: string;
  let server: ChromaServer;
  let store: ChromaDocStore;
  const agents: CodeAgent[] = [];
  const sessions: DocsSession[] = [];

  beforeAll(async () => {
    docsDir = mkdtempSync(join(tmpdir(), "atrium-e2e-docs-"));
    for (const page of PAGES) {
      mkdirSync(dirname(join(docsDir, page)), { recursive: true });
      cpSync(join(CORPUS, page), join(docsDir, page));
    }
    mkdirSync(join(docsDir, "internal"));
    writeFileSync(join(docsDir, "internal", "runbook.mdx"), SECRET);
    dataDir = mkdtempSync(join(tmpdir(), "atrium-e2e-chroma-"));
    server = await startChromaServer({ path: dataDir });
    await ingestDocs({ dir: docsDir, collection: "docs", url: server.url });
    store = await ChromaDocStore.open({ url: server.url, collection: "docs" });
  }, 60_000);
  afterAll(async () => {
    // Set-up may have failed anywhere: clean up what exists, whatever else fails.
    await Promise.allSettled([...agents.map((agent) => agent.close()), ...sessions.map((s) => s.close())]);
    try {
      await server?.stop();
    } finally {
      for (const dir of [dataDir, docsDir]) if (dir) rmSync(dir, { recursive: true, force: true });
    }
  });

  const agentWith = (model: ScriptedModel, tools: CodeAgent["tools"][number][]) => {
    const agent = new CodeAgent({ model, tools, executor: () => QuickJsExecutor.create() });
    agents.push(agent);
    return agent;
  };

  it("greps and reads pages from inside the sandbox, never seeing a restricted page", async () => {
    const session = await openDocsSession({ store });
    sessions.push(session);
    const model = new ScriptedModel([
      js(
        'const found = await bash({ command: "grep -rl Kubernetes / | sort" });\nconsole.log(found.stdout + "exit " + found.exitCode);',
      ),
      js(
        'const head = await bash({ command: "head -3 /deploy/ci.mdx; cat /internal/runbook.mdx" });\nfinal_answer({ head: head.stdout, error: head.stderr, exit: head.exitCode });',
      ),
    ]);
    const result = await agentWith(model, [docsBashTool(session), docsSearchTool(store, session.access)]).run(
      "Which pages mention Kubernetes, and how does the CI page start?",
    );

    expect(result.state).toBe("success");
    expect(lastText(model.calls[1]!.messages)).toBe(
      "Observation:\nExecution logs:\n/deploy/ci.mdx\n/deploy/self-host.mdx\nexit 0",
    );
    const ci = readFileSync(join(CORPUS, "deploy/ci.mdx"), "utf8");
    expect(result.output).toEqual({
      head: `${ci.split("\n").slice(0, 3).join("\n")}\n`,
      error: "cat: /internal/runbook.mdx: No such file or directory\n",
      exit: 1,
    });
  });

  it("uses `atrium-docs mcp` over stdio as a tool source, for a user's groups", async () => {
    const mcp: McpConnection = await connectMcpServers({
      docs: {
        command: process.execPath,
        args: [
          ...cliArgs(CHROMAFS_DIR),
          "mcp",
          "--collection",
          "docs",
          "--chroma-url",
          server.url,
          "--groups",
          "staff",
        ],
        cwd: CHROMAFS_DIR,
      },
    });
    try {
      const model = new ScriptedModel([
        js(
          'const r = await bash({ command: "grep -rn on-call /" });\nconst hits = await search({ query: "incident runbook" });\nfinal_answer({ grep: r.stdout, top: hits.split(":")[0] });',
        ),
      ]);
      const result = await agentWith(model, mcp.tools).run("Who do we page for Kubernetes incidents?");
      expect(result.state).toBe("success");
      expect(result.output).toEqual({
        grep: "/internal/runbook.mdx:5:Page the Kubernetes on-call.\n",
        top: "/internal/runbook.mdx",
      });
    } finally {
      await mcp.close();
    }
  }, 60_000);
});
