// Issue 25's demo check: two users of the web UI (`--user alice`, then `--user bob`, one palace in
// one data dir) in real Chromium. What alice asked the assistant to keep never reaches bob's
// answer, trace, wake-up or memory panel; alice, back, still has it.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_MISSING, launchChromium } from "./chromium.js";
import { corpusCopy, removeDirs, SOME_PAGES } from "./demo-corpus.js";
import { openDemoPage, startWebDemo, type WebDemo } from "./demo-web-process.js";

const SECRET = "I prefer Haskell examples with zygohistomorphic prepromorphisms.";

/** The demo's web UI as `user`, with a page open on it; `stop` ends both. */
async function openAs(
  browser: Browser,
  user: string,
  docsDir: string,
  dataDir: string,
): Promise<{ demo: WebDemo; page: Page; stop: () => Promise<void> }> {
  const demo = await startWebDemo(["--corpus", docsDir, "--data", dataDir, "--port", "0", "--user", user]);
  const page = await openDemoPage(browser, demo.url);
  await page.waitForSelector(".memory-columns");
  return {
    demo,
    page,
    async stop() {
      await page.close();
      process.kill(-demo.child.pid!, "SIGINT");
      expect(await demo.exited).toEqual({ code: 0, signal: null });
    },
  };
}

async function ask(page: Page, question: string, answers: number): Promise<string> {
  await page.fill("#question", question);
  await page.click("#send");
  await page.waitForSelector(`.message.answer:nth-of-type(${answers * 2})`, { timeout: 60_000 });
  return (await page.locator(".message.answer").last().locator(".answer-text").textContent()) ?? "";
}

/** Everything the page shows: chat, trace and memory panel. */
async function pageText(page: Page): Promise<string> {
  return page.evaluate<string>("document.body.innerText");
}

describe("the demo's web UI, two users over one palace, in Chromium", () => {
  let browser: Browser | undefined;
  let docsDir: string;
  let dataDir: string;

  beforeAll(async () => {
    browser = await launchChromium();
    docsDir = corpusCopy(SOME_PAGES);
    dataDir = mkdtempSync(join(tmpdir(), "atrium-demo-tenancy-"));
  });

  afterAll(async () => {
    await browser?.close();
    removeDirs(docsDir, dataDir);
  });

  it("bob sees nothing of alice's memories, facts or sessions; alice still does", async (context) => {
    if (!browser) return context.skip(CHROMIUM_MISSING);
    const alice = await openAs(browser, "alice", docsDir, dataDir);
    await ask(alice.page, `Remember that ${SECRET}`, 1);
    await alice.page.waitForSelector(".memory-facts .fact");
    expect(await alice.page.locator(".memory-facts .fact").allTextContents()).toEqual([
      "alice — prefers → Haskell examples with zygohistomorphic prepromorphismsForget",
    ]);
    await alice.stop();

    const bob = await openAs(browser, "bob", docsDir, dataDir);
    // The panel: bob's wing only, and nothing in it yet.
    expect(await bob.page.locator(".memory-drawers").textContent()).toBe("Recent drawersNothing filed yet.");
    expect(await bob.page.locator(".memory-facts .fact").count()).toBe(0);
    const answer = await ask(bob.page, "What do I prefer?", 1);
    expect(answer).not.toContain("Haskell");
    // The trace: the question's recall found nothing of alice's.
    const recalled = await bob.page.$$eval(".trace-item[data-kind=memory]", (items) =>
      items.map((item) => item.textContent ?? ""),
    );
    expect(recalled.some((text) => text.startsWith("Memory recalled for the question (0,"))).toBe(true);
    await bob.page.waitForSelector(".memory-wings li");
    const shown = await pageText(bob.page);
    for (const leak of ["Haskell", "zygohistomorphic", "alice"]) expect(shown).not.toContain(leak);
    expect(await bob.page.locator(".memory-wings li").allTextContents()).toEqual([
      expect.stringMatching(/^sessions \(\d+\)$/),
      expect.stringMatching(/^bob \(\d+\)$/),
    ]);
    await bob.stop();

    const back = await openAs(browser, "alice", docsDir, dataDir);
    expect(await back.page.locator(".memory-facts .fact").allTextContents()).toEqual([
      "alice — prefers → Haskell examples with zygohistomorphic prepromorphismsForget",
    ]);
    expect(await ask(back.page, "What do I prefer?", 1)).toContain("Haskell");
    expect(await pageText(back.page)).not.toContain("bob");
    await back.stop();
  }, 240_000);
});
