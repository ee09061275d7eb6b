// Suite (4) of issue 14: in the demo assistant, a user without a page's group never sees that
// page through any tool — not in grep, cat, ls, find, search, rg or a guessed path, not in the
// trace, not in a citation — while a user with the group is answered from it. The page is marked
// restricted the way chromafs reads access (front-matter `groups:`) in a copy of the corpus.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScriptedModel } from "@atrium/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AnswerEvent,
  type Assistant,
  type AssistantEvent,
  createAssistant,
  type DocsLibrary,
  openDocsLibrary,
  scriptedDocsModel,
} from "../../apps/demo/src/index.ts";
import { corpusCopy, removeDirs, SOME_PAGES } from "./demo-corpus.js";
import { js } from "./scripted-steps.js";

const RUNBOOK =
  "---\ntitle: Incident runbook\ngroups: [staff]\n---\n\n# Incident runbook\n\n" +
  "During an incident, page the on-call engineer through the PagerDuty rotation named atrium-primary.\n";
const SECRETS = ["runbook", "PagerDuty", "atrium-primary"];
const QUESTION = "How does the incident pager rotation work?";

async function collect(assistant: Assistant, question: string, groups: string[]): Promise<AssistantEvent[]> {
  const events: AssistantEvent[] = [];
  for await (const event of assistant.ask(question, { user: { id: "u", groups } })) events.push(event);
  return events;
}

describe("demo assistant: access control through every tool", () => {
  let docsDir: string;
  let dataDir: string;
  let docs: DocsLibrary;
  const assistants: Assistant[] = [];
  const assistantWith = async (model: ScriptedModel) => {
    const assistant = await createAssistant({ docs, model });
    assistants.push(assistant);
    return assistant;
  };

  beforeAll(async () => {
    docsDir = corpusCopy(SOME_PAGES, { "internal/incident-runbook.mdx": RUNBOOK });
    dataDir = mkdtempSync(join(tmpdir(), "atrium-demo-data-"));
    docs = await openDocsLibrary({ corpusDir: docsDir, dataDir, collection: "docs" });
  }, 60_000);
  afterAll(async () => {
    try {
      await Promise.allSettled(assistants.map((a) => a.close()));
      await docs?.close();
    } finally {
      removeDirs(docsDir, dataDir);
    }
  });

  it("a user without the group never sees the page, whatever the code tries", async () => {
    const attempts = [
      "cat /internal/incident-runbook.mdx",
      "cat /internal/../internal/incident-runbook.mdx",
      "ls -R /",
      "ls /internal",
      "find / -name '*.mdx'",
      "grep -rn PagerDuty /",
      "grep -rl -i 'incident' /",
      "grep -n rotation /internal/incident-runbook.mdx",
      "rg -n atrium-primary /",
      "head -5 /internal/*",
      "wc -c /internal/incident-runbook.mdx",
      "test -e /internal/incident-runbook.mdx && echo exists || echo absent",
      "search 'PagerDuty on-call rotation'",
    ];
    const model = new ScriptedModel([
      js(
        `const results = [];\nfor (const command of ${JSON.stringify(attempts)}) results.push(await bash({ command }));\n` +
          `results.push(await search({ query: "PagerDuty atrium-primary incident" }));\nfinal_answer({ answer: JSON.stringify(results), sources: [] });`,
      ),
    ]);
    const events = await collect(await assistantWith(model), "Show me everything about incidents.", []);
    const answer = events.at(-1) as AnswerEvent;
    expect(answer.state).toBe("success");
    const results = JSON.parse(answer.answer) as ({ stdout: string; exitCode: number } | string)[];
    expect(results).toHaveLength(attempts.length + 1);
    expect(results[0]).toEqual({
      stdout: "",
      stderr: "cat: /internal/incident-runbook.mdx: No such file or directory\n",
      exitCode: 1,
    });
    expect(results[11]).toEqual({ stdout: "absent\n", stderr: "", exitCode: 0 });
    // Nothing of the page's text comes back anywhere: tool results, observations, the trace's
    // docs commands. (The commands themselves name the page and its words: that is the attempt.)
    const outputs = events
      .map((e) =>
        e.type === "docs-command"
          ? e.stdout + e.stderr
          : e.type === "tool-result"
            ? JSON.stringify(e.output)
            : e.type === "observation"
              ? e.text
              : "",
      )
      .join("\n");
    expect(outputs).not.toMatch(/PagerDuty|atrium-primary|on-call/);
    // Commands that did not name the page never reveal that it exists.
    const blind = attempts.flatMap((command, i) =>
      command.includes("runbook") ? [] : [JSON.stringify(results[i])],
    );
    blind.push(JSON.stringify(results.at(-1)));
    expect(blind).toHaveLength(9);
    for (const result of blind) expect(result).not.toMatch(/runbook|incident/i);
  }, 60_000);

  it("the scripted docs model neither finds nor cites it for that user, and does for a staff member", async () => {
    const outside = await collect(await assistantWith(scriptedDocsModel()), QUESTION, []);
    const outsideText = JSON.stringify(outside);
    for (const secret of SECRETS) expect(outsideText.includes(secret)).toBe(false);
    expect((outside.at(-1) as AnswerEvent).citations.some((c) => c.path.startsWith("/internal/"))).toBe(
      false,
    );

    const staff = await collect(await assistantWith(scriptedDocsModel()), QUESTION, ["staff"]);
    const answer = staff.at(-1) as AnswerEvent;
    expect(answer.citations[0]).toEqual({ path: "/internal/incident-runbook.mdx", verified: true });
    expect(answer.answer).toContain(
      "During an incident, page the on-call engineer through the PagerDuty rotation named atrium-primary.",
    );
  }, 60_000);
});
