// Suite (1) of issue 14: the demo assistant answers a docs question by grep + cat over ChromaFs
// (a real Chroma server, the scripted docs model, real QuickJS) and cites the page it read; when
// the page moves to another path in the corpus, the re-ingest picks up only that change and the
// cited path follows, because citations come from what the tools returned.
import { mkdirSync, mkdtempSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AnswerEvent,
  type Assistant,
  type AssistantEvent,
  createAssistant,
  type DocsCommandEvent,
  type DocsLibrary,
  openDocsLibrary,
  scriptedDocsModel,
} from "../../apps/demo/src/index.ts";
import { corpusCopy, removeDirs, SOME_PAGES } from "./demo-corpus.js";

const QUESTION = "How do I host my documentation on a custom domain?";

async function ask(assistant: Assistant, question: string): Promise<AssistantEvent[]> {
  const events: AssistantEvent[] = [];
  for await (const event of assistant.ask(question)) events.push(event);
  return events;
}
const commands = (events: AssistantEvent[]) =>
  events.filter((e): e is DocsCommandEvent => e.type === "docs-command").map((e) => e.command);
const answerOf = (events: AssistantEvent[]) => events.at(-1) as AnswerEvent;

describe("demo assistant × ChromaFs: citations follow the page", () => {
  let docsDir: string;
  let dataDir: string;
  let docs: DocsLibrary;
  let assistant: Assistant;

  beforeAll(async () => {
    docsDir = corpusCopy(SOME_PAGES);
    dataDir = mkdtempSync(join(tmpdir(), "atrium-demo-data-"));
    docs = await openDocsLibrary({ corpusDir: docsDir, dataDir, collection: "docs" });
    assistant = await createAssistant({ docs, model: scriptedDocsModel() });
  }, 60_000);
  afterAll(async () => {
    try {
      await assistant?.close();
      await docs?.close();
    } finally {
      removeDirs(docsDir, dataDir);
    }
  });

  it("ingests the corpus the first time and skips the ingest when nothing changed", async () => {
    expect(docs.lastIngest.reason).toBe("first");
    expect(docs.lastIngest.summary?.pages).toEqual({
      added: 9,
      changed: 0,
      removed: 0,
      unchanged: 0,
      total: 9,
    });
    const again = await docs.refresh();
    expect([again.reason, again.summary]).toEqual(["unchanged", undefined]);
  });

  it("answers by grep and cat, citing the page it read, and the citation follows a moved page", async () => {
    const before = await ask(assistant, QUESTION);
    // The searches run at once (Promise.all in the model's code), so they finish in any order.
    const ran = commands(before);
    expect(ran[0]).toBe("find / -type f | wc -l");
    expect(ran.slice(1, 5).sort()).toEqual(
      [
        `search '${QUESTION}'`,
        "grep -rciE -- '(^|[^[:alnum:]])custom' / | grep -v ':0$'",
        "grep -rciE -- '(^|[^[:alnum:]])domain' / | grep -v ':0$'",
        "grep -rciE -- '(^|[^[:alnum:]])host' / | grep -v ':0$'",
      ].sort(),
    );
    // The second pass looks again at the pages the first found: their sizes, titles, descriptions.
    const pool =
      "'/customize/custom-domain.mdx' '/quickstart.mdx' '/customize/fonts.mdx' '/create/redirects.mdx' '/cli/preview.mdx' '/cli/install.mdx' '/deploy/ci.mdx' '/organize/hidden-pages.mdx' '/index.mdx'";
    expect(ran.slice(5, 7).sort()).toEqual([
      `grep -H -m2 -E '^(title|description):' ${pool}`,
      `wc -c ${pool}`,
    ]);
    expect(ran.slice(7)).toEqual(["cat '/customize/custom-domain.mdx'", "cat '/customize/fonts.mdx'"]);
    const first = answerOf(before);
    expect(first.state).toBe("success");
    expect(first.citations).toEqual([{ path: "/customize/custom-domain.mdx", verified: true }]);
    expect(first.answer).toContain("custom domain");

    mkdirSync(join(docsDir, "hosting"));
    renameSync(join(docsDir, "customize/custom-domain.mdx"), join(docsDir, "hosting/your-own-domain.mdx"));
    const report = await docs.refresh();
    expect(report.reason).toBe("changed");
    expect(report.summary?.pages).toEqual({ added: 1, changed: 0, removed: 1, unchanged: 8, total: 9 });

    const after = await ask(assistant, QUESTION);
    expect(commands(after)).toContain("cat '/hosting/your-own-domain.mdx'");
    expect(commands(after)).not.toContain("cat '/customize/custom-domain.mdx'");
    const second = answerOf(after);
    expect(second.citations).toEqual([{ path: "/hosting/your-own-domain.mdx", verified: true }]);
    expect(second.answer).toBe(first.answer);
  }, 60_000);
});
