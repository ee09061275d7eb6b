// Approvals in the demo's web UI, as a person gives them: `npm run demo -- --web --approve
// memory-writes` (a real child process with its embedded Chroma, the palace on SQLite and the
// scripted docs model, whose code files "Remember that …" with remember and kg_add) driven in
// real Chromium through playwright-core. The waiting call shows in the trace with its tool and
// input (as text), Approve by keyboard and by click lets the run file the memory, and Deny with a
// reason (markup in it shown as text) reaches the code, whose answer quotes it; at a phone's width
// the card fits, and Deny works by keyboard alone. Screenshots go to
// tests/.output/demo-web-approvals/.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_MISSING, launchChromium } from "./chromium.js";
import { corpusCopy, removeDirs, SOME_PAGES } from "./demo-corpus.js";
import { killWebDemo, openDemoPage, startWebDemo, type WebDemo } from "./demo-web-process.js";

const OUTPUT_DIR = fileURLToPath(new URL("../.output/demo-web-approvals/", import.meta.url));
const WAITING = "Waiting for your answer; without one within 120 s the call is refused.";

interface Card {
  state: string;
  heading: string;
  input: string;
  outcome: string;
  disabled: boolean[];
}

/** The approval cards of the newest question's trace, as the user sees them. */
async function cards(page: Page): Promise<Card[]> {
  return page.$$eval(".trace-group:first-child .trace-approval", (items) =>
    items.map((item) => ({
      state: item.getAttribute("data-state") ?? "",
      heading: item.querySelector(".label")?.textContent ?? "",
      input: item.querySelector(".approval-input")?.textContent ?? "",
      outcome: item.querySelector(".approval-outcome")?.textContent ?? "",
      disabled: [...item.querySelectorAll(".approval-actions button")].map(
        (button) => (button as unknown as { disabled: boolean }).disabled,
      ),
    })),
  );
}

/** The text of the element that has the keyboard (a string runs in the page: no DOM types here). */
const focused = (page: Page) => page.evaluate<string>("document.activeElement?.textContent ?? ''");

describe("npm run demo -- --web --approve memory-writes, in Chromium", () => {
  let docsDir: string;
  let dataDir: string;
  let demo: WebDemo | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let answers = 0;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    if (!browser) return;
    rmSync(OUTPUT_DIR, { recursive: true, force: true });
    mkdirSync(OUTPUT_DIR, { recursive: true });
    docsDir = corpusCopy(SOME_PAGES);
    dataDir = mkdtempSync(join(tmpdir(), "atrium-demo-approvals-"));
    demo = await startWebDemo([
      "--corpus",
      docsDir,
      "--data",
      dataDir,
      "--port",
      "0",
      "--approve",
      "memory-writes",
    ]);
    page = await openDemoPage(browser, demo.url, pageErrors);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    killWebDemo(demo);
    removeDirs(docsDir, dataDir);
  });

  /** Asks by typing and Enter, as a person would; resolves once the first approval card shows. */
  async function askAndWaitForApproval(question: string): Promise<void> {
    await page.fill("#question", question);
    await page.press("#question", "Enter");
    answers++;
    await page.waitForSelector(".trace-group:first-child .trace-approval[data-state=waiting]");
  }

  async function answerText(): Promise<string> {
    await page.waitForSelector(`.message.answer:nth-of-type(${answers * 2})`, { timeout: 60_000 });
    return (await page.locator(".message.answer").last().locator(".answer-text").textContent()) ?? "";
  }

  it("says at start that memory writes wait for approval", async (context) => {
    if (!browser) return context.skip(CHROMIUM_MISSING);
    expect(demo!.stdout()).toContain(
      "Approvals: memory writes wait for Approve or Deny in the page's trace (refused after 120 s without an answer)\n",
    );
    expect(await page.textContent("#who")).toBe(
      "Asking as demo · tools: bash, search, recall, remember, kg_query, kg_add, diary_write, diary_read · memory writes wait for your approval in the trace",
    );
  });

  it("shows the waiting call with Approve and Deny; Approve (keyboard, then click) lets the run file the memory", async (context) => {
    if (!browser) return context.skip(CHROMIUM_MISSING);
    await askAndWaitForApproval("Remember that my project is hosted on GitLab.");
    expect(await cards(page)).toEqual([
      {
        state: "waiting",
        heading: "Approval needed: remember ",
        input: '{"content":"My project is hosted on GitLab."}',
        outcome: WAITING,
        disabled: [false, false],
      },
    ]);
    // Asked with Enter, the keyboard is on Approve: Enter again approves.
    expect(await focused(page)).toBe("Approve");
    await page.screenshot({ path: join(OUTPUT_DIR, "approval-waiting.png") });
    await page.keyboard.press("Enter");

    // The fact taken from it is a memory write too: its own card, approved by a click.
    const waiting = page.locator(".trace-group:first-child .trace-approval[data-state=waiting]", {
      hasText: "Approval needed: kg_add",
    });
    await waiting.waitFor();
    expect(await page.locator(".trace-group:first-child .trace-approval").count()).toBe(2);
    await waiting.getByRole("button", { name: "Approve" }).click();

    expect(await answerText()).toBe('Noted: I will remember "My project is hosted on GitLab.".');
    const settled = await cards(page);
    expect(
      settled.map(({ state, heading, outcome, disabled }) => ({ state, heading, outcome, disabled })),
    ).toEqual([
      {
        state: "approved",
        heading: "Approval needed: remember ",
        outcome: "Approved: remember runs.",
        disabled: [true, true],
      },
      {
        state: "approved",
        heading: "Approval needed: kg_add ",
        outcome: "Approved: kg_add runs.",
        disabled: [true, true],
      },
    ]);
    // The tool's effect: the memory is in the palace, and the panel lists it.
    await page.waitForSelector(".memory-drawers .drawer:has-text('My project is hosted on GitLab.')");
    await page.screenshot({ path: join(OUTPUT_DIR, "approval-approved.png") });
  }, 120_000);

  it("Deny asks for a reason, which reaches the code (the answer quotes it) and shows as text", async (context) => {
    if (!browser) return context.skip(CHROMIUM_MISSING);
    await askAndWaitForApproval("Remember that I prefer tabs over spaces.");
    const card = page.locator(".trace-group:first-child .trace-approval");
    expect(await card.locator(".approval-input").textContent()).toBe(
      '{"content":"I prefer tabs over spaces."}',
    );
    await card.getByRole("button", { name: "Deny…" }).click();
    // The reason box takes the keyboard; markup typed there must stay characters.
    expect(await page.evaluate<string>("document.activeElement?.className ?? ''")).toBe("deny-reason");
    const reason = 'not on this machine <img src="x" id="from-reason">';
    await page.keyboard.type(reason);
    await page.keyboard.press("Enter");

    expect(await answerText()).toBe(
      `I did not file that in memory: Tool "remember" was not approved: ${reason}`,
    );
    expect(await cards(page)).toEqual([
      {
        state: "denied",
        heading: "Approval needed: remember ",
        input: '{"content":"I prefer tabs over spaces."}',
        outcome: `Not approved: ${reason}`,
        disabled: [true, true],
      },
    ]);
    expect(await page.locator("#from-reason").count()).toBe(0);
    // Only the session's transcript was filed (it quotes the question); the memories room has nothing of it.
    const drawers = page.locator(".memory-drawers .drawer", { hasText: "I prefer tabs over spaces." });
    await drawers.filter({ hasText: "sessions ·" }).first().waitFor();
    expect(await drawers.filter({ hasText: "memories ·" }).count()).toBe(0);
    await page.screenshot({ path: join(OUTPUT_DIR, "approval-denied.png") });
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it("fits a phone (390) with a card waiting, and denies by keyboard alone", async (context) => {
    if (!browser) return context.skip(CHROMIUM_MISSING);
    await page.setViewportSize({ width: 390, height: 844 });
    await askAndWaitForApproval("Remember that my editor is Helix.");
    // A string runs in the page: this project's types have no DOM library.
    expect(
      await page.evaluate<number>(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth",
      ),
    ).toBe(0);
    await page.locator(".trace-approval[data-state=waiting]").scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(OUTPUT_DIR, "approval-phone.png") });
    // Keyboard only: Tab from Approve to Deny…, which opens the reason; Escape closes it and
    // gives the keyboard back to Deny…; Enter opens it again, and Enter sends it empty.
    const card = page.locator(".trace-approval[data-state=waiting]");
    expect(await focused(page)).toBe("Approve");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    expect(await card.locator(".deny-form").isVisible()).toBe(true);
    await page.keyboard.press("Escape");
    expect(await card.locator(".deny-form").isVisible()).toBe(false);
    expect(await focused(page)).toBe("Deny…");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    expect(await answerText()).toBe('I did not file that in memory: Tool "remember" was not approved');
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
