// Issue 16's demo suite: the composed demo with the Python executor. The same docs question as
// demo-docs-citation, asked of one assistant (the scripted docs model, ChromaFs on a real Chroma
// server) with its code run once in QuickJS and once in Python in Pyodide. The model reads the
// language from the prompt the code agent renders for the executor, so nobody tells it which:
// the Python run's code is Python, its commands and ranking are the JavaScript run's, and so are
// its answer and citation. Then the memory behaviour in Python: a fact stated in one question is
// filed in the palace by Python code and steers the docs answer of the next.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drainPythonWorkers, pythonExecutorFactory } from "@atrium/python";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AnswerEvent,
  type Assistant,
  type AssistantEvent,
  createAssistant,
  type DocsLibrary,
  type MemoryFiledEvent,
  openDocsLibrary,
  openPalaceMemory,
  palaceDirIn,
  scriptedDocsModel,
} from "../../apps/demo/src/index.ts";
import { corpusCopy, removeDirs, SOME_PAGES } from "./demo-corpus.js";

const QUESTION = "How do I host my documentation on a custom domain?";

async function ask(assistant: Assistant, question: string, python: boolean): Promise<AssistantEvent[]> {
  const events: AssistantEvent[] = [];
  const options = python
    ? { executor: pythonExecutorFactory(), user: { id: "alice" } }
    : { user: { id: "alice" } };
  for await (const event of assistant.ask(question, options)) events.push(event);
  return events;
}
const commands = (events: AssistantEvent[]) =>
  events.flatMap((e) => (e.type === "docs-command" ? [e.command] : []));
const code = (events: AssistantEvent[]) =>
  events.flatMap((e) => (e.type === "code" ? [{ language: e.language, code: e.code }] : []));
const observations = (events: AssistantEvent[]) =>
  events.flatMap((e) => (e.type === "observation" ? [e.text] : []));
const answerOf = (events: AssistantEvent[]) => events.at(-1) as AnswerEvent;

describe("demo assistant × Python in Pyodide: the same docs question, answered in Python", () => {
  let docsDir: string;
  let dataDir: string;
  let docs: DocsLibrary;
  let assistant: Assistant;

  beforeAll(async () => {
    docsDir = corpusCopy([...SOME_PAGES, "deploy/gitlab.mdx", "deploy/deployments.mdx"]);
    dataDir = mkdtempSync(join(tmpdir(), "atrium-demo-python-"));
    docs = await openDocsLibrary({ corpusDir: docsDir, dataDir, collection: "docs" });
    assistant = await createAssistant({ docs, model: scriptedDocsModel() });
  }, 60_000);
  afterAll(async () => {
    try {
      await assistant?.close();
      await docs?.close();
      await drainPythonWorkers();
    } finally {
      removeDirs(docsDir, dataDir);
    }
  });

  it("writes Python for the Python executor and answers as it does in QuickJS, citing the page it read", async () => {
    const inJavaScript = await ask(assistant, QUESTION, false);
    const inPython = await ask(assistant, QUESTION, true);

    const steps = code(inPython);
    expect(steps.map((s) => s.language)).toEqual(["python", "python", "python"]);
    expect(steps[0]!.code).toContain(
      "\nsearched = bash(command=\"search 'How do I host my documentation on a custom domain?'\")\n",
    );
    expect(steps[1]!.code).toBe(
      `for path, command in [["/customize/custom-domain.mdx","cat '/customize/custom-domain.mdx'"],["/customize/fonts.mdx","cat '/customize/fonts.mdx'"]]:\n    page = bash(command=command)\n    print("==> " + path + " <==\\n" + page["stdout"])`,
    );
    expect(steps[2]!.code).toMatch(/^final_answer\(\{\n {4}"answer": "/);
    expect(code(inJavaScript).map((s) => s.language)).toEqual(["javascript", "javascript", "javascript"]);

    // Python calls its tools one after another, in the order the code names them; the second
    // ranking pass looks again at the pages the first found.
    const POOL =
      "'/customize/custom-domain.mdx' '/customize/fonts.mdx' '/quickstart.mdx' '/deploy/gitlab.mdx' '/create/redirects.mdx' '/cli/preview.mdx' '/cli/install.mdx' '/deploy/deployments.mdx' '/deploy/ci.mdx' '/organize/hidden-pages.mdx'";
    expect(commands(inPython)).toEqual([
      "find / -type f | wc -l",
      `search '${QUESTION}'`,
      "grep -rciE -- '(^|[^[:alnum:]])custom' / | grep -v ':0$'",
      "grep -rciE -- '(^|[^[:alnum:]])domain' / | grep -v ':0$'",
      "grep -rciE -- '(^|[^[:alnum:]])host' / | grep -v ':0$'",
      `wc -c ${POOL}`,
      `grep -H -m2 -E '^(title|description):' ${POOL}`,
      "cat '/customize/custom-domain.mdx'",
      "cat '/customize/fonts.mdx'",
    ]);
    expect([...commands(inJavaScript)].sort()).toEqual([...commands(inPython)].sort());
    // The ranking printed by Python's code is the one JavaScript's printed, to the digit.
    const ranking = observations(inPython)[0]!;
    expect(ranking).toMatch(
      /^Execution logs:\nweights: custom=\d\.\d{3} domain=\d\.\d{3} host=\d\.\d{3}\nrank /,
    );
    expect(ranking).toContain(' /customize/custom-domain.mdx {"custom":');
    expect(ranking).toBe(observations(inJavaScript)[0]);
    expect(observations(inPython)[1]).toBe(observations(inJavaScript)[1]);

    const answer = answerOf(inPython);
    expect(answer.state).toBe("success");
    expect(answer.citations).toEqual([{ path: "/customize/custom-domain.mdx", verified: true }]);
    expect(answer.answer).toBe(answerOf(inJavaScript).answer);
    expect(answerOf(inJavaScript).citations).toEqual(answer.citations);
    expect(answer.answer).toBe(
      "To host your documentation on a custom domain: The `_acme-challenge` record authorizes Let's Encrypt to issue a TLS certificate for your domain, and the `_cf-custom-hostname` record verifies that you control the domain.",
    );
  }, 120_000);

  it("files what the user states and recalls it in Python, the recalled fact choosing the page", async () => {
    const memory = await openPalaceMemory({ dir: palaceDirIn(dataDir), chromaUrl: docs.chromaUrl });
    await using withMemory = await createAssistant({ docs, model: scriptedDocsModel(), memory });
    const stated = await ask(withMemory, "Remember that my project is hosted on GitLab.", true);
    expect(code(stated).map((s) => s.language)).toEqual(["python", "python"]);
    expect(code(stated)[0]!.code).toContain(
      '\nkept0 = remember(content="My project is hosted on GitLab.")\n',
    );
    expect(answerOf(stated).answer).toBe('Noted: I will remember "My project is hosted on GitLab.".');
    expect(
      stated
        .filter((e): e is MemoryFiledEvent => e.type === "memory-filed" && e.via === "tool")
        .flatMap((e) => e.memories?.map((m) => m.content) ?? []),
    ).toEqual(["My project is hosted on GitLab.", "alice — project_is_hosted_on → GitLab"]);

    const deploy = await ask(withMemory, "How do I set up automatic deployments for my project?", true);
    expect(code(deploy).map((s) => s.language)).toEqual(["python", "python", "python", "python"]);
    expect(observations(deploy)[0]).toContain('\nrecalled "My project is hosted on GitLab."\n');
    expect(observations(deploy)[0]).toContain('\nknown "alice — project_is_hosted_on → GitLab"');
    expect(commands(deploy)).toContain("grep -rciE -- '(^|[^[:alnum:]])gitlab' / | grep -v ':0$'");
    const answer = answerOf(deploy);
    expect(answer.answer).toBe(
      'You told me: "My project is hosted on GitLab." Connect your GitLab repository to Mintlify for automated documentation deployments, merge request previews, and continuous synchronization. GitLab uses webhooks to notify Mintlify when you make changes, which enables preview deployments for merge requests.',
    );
    expect(answer.citations).toEqual([{ path: "/deploy/gitlab.mdx", verified: true }]);
  }, 180_000);
});
