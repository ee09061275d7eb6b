// Suite (5) of issue 14: the demo's web UI (`npm run demo -- --web`, a real child process with
// its embedded Chroma and the scripted docs model) driven in real Chromium through playwright-core.
// A question streams its step trace before the answer, the answer cites the page it read, an
// image goes with a question (and the request and the trace show it did), a file that is not an
// image is refused with a message, the executor switch lists what the app has (the micro-VM
// where the host boots one) and each answers, docs text shows as text (never markup), laptop and
// phone widths do not scroll sideways, and Ctrl-C stops the server leaving no process behind
// (Chroma and the micro-VM's QEMU checked by PID). Screenshots go to tests/.output/demo-web/.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { qemuDescendants } from "../../packages/microvm/test/qemu-processes.ts";
import { CHROMIUM_MISSING, launchChromium } from "./chromium.js";
import { corpusCopy, removeDirs, SOME_PAGES } from "./demo-corpus.js";
import { alive, killWebDemo, openDemoPage, startWebDemo, until, type WebDemo } from "./demo-web-process.js";

const OUTPUT_DIR = fileURLToPath(new URL("../.output/demo-web/", import.meta.url));
const CUSTOM_DOMAIN = "How do I host my documentation on a custom domain?";
// A real 1×1 PNG (valid chunks and CRCs), 70 bytes.
const PIXEL_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);
// A page whose text is markup: the trace and the answer must show it as characters.
const MARKUP_PAGE = [
  "---",
  'title: "Zebracorn widget"',
  "---",
  "",
  'The zebracorn widget renders <img src="x" id="injected-from-docs"> and <b id="bold-from-docs">bold</b> as plain text.',
  "",
].join("\n");

// The micro-VM executor is offered where the host can boot it (QEMU, a kernel, musl-gcc,
// busybox-static, Debian's python3; .ci/setup.sh installs them): always under CI=true.
const VM_READY =
  process.env.CI === "true" ||
  ["/usr/bin/qemu-system-x86_64", "/usr/bin/musl-gcc", "/bin/busybox", "/usr/bin/python3"].every((path) =>
    existsSync(path),
  );

interface TraceItem {
  kind: string;
  text: string;
  receivedAt: number;
}

async function traceItems(page: Page): Promise<TraceItem[]> {
  return page.$$eval(".trace-group:first-child .trace-item", (items) =>
    items.map((item) => ({
      kind: item.getAttribute("data-kind") ?? "",
      // biome-ignore lint/performance/useDomNodeTextContent: what the user sees, line breaks included
      text: (item as unknown as { innerText: string }).innerText,
      receivedAt: Number(item.getAttribute("data-received-at")),
    })),
  );
}

/** Types a question, sends it, and waits for its answer in the chat (the n-th answer of the page). */
async function askAndWait(page: Page, question: string, answers: number): Promise<void> {
  await page.fill("#question", question);
  await page.click("#send");
  await page.waitForSelector(`.message.answer:nth-of-type(${answers * 2})`, { timeout: 60_000 });
}

async function horizontalOverflow(page: Page): Promise<number> {
  // A string runs in the page: this project's types have no DOM library.
  return page.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth");
}

describe("npm run demo -- --web, in Chromium", () => {
  let docsDir: string;
  let dataDir: string;
  let demo: WebDemo | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let answersSoFar = 0;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    if (!browser) return;
    rmSync(OUTPUT_DIR, { recursive: true, force: true });
    mkdirSync(OUTPUT_DIR, { recursive: true });
    docsDir = corpusCopy(SOME_PAGES, { "guides/zebracorn.mdx": MARKUP_PAGE });
    dataDir = mkdtempSync(join(tmpdir(), "atrium-demo-web-"));
    demo = await startWebDemo(["--corpus", docsDir, "--data", dataDir, "--port", "0"]);
    page = await openDemoPage(browser, demo.url, pageErrors);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    killWebDemo(demo);
    removeDirs(docsDir, dataDir);
  });

  const ask = async (question: string) => askAndWait(page, question, ++answersSoFar);

  it("prints its loopback URL and serves the page with the switches filled in", async (context) => {
    if (!browser) return context.skip(CHROMIUM_MISSING);
    expect(demo!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(await page.title()).toBe("Atrium demo: docs assistant");
    expect(await page.$$eval("#model option", (options) => options.map((o) => o.textContent))).toEqual([
      "Scripted docs model (no API key needed)",
    ]);
    expect(await page.textContent("#who")).toBe(
      "Asking as demo · tools: bash, search, recall, remember, kg_query, kg_add, diary_write, diary_read",
    );
    // The demo opened its palace (wing "demo"), so the page shows the memory panel, empty so far.
    await page.waitForSelector(".memory-columns");
    expect(await page.isVisible("#memory")).toBe(true);
    expect(await page.locator(".memory-drawers").textContent()).toBe("Recent drawersNothing filed yet.");
  });

  it("streams the step trace before the answer, which cites the page it read", async (context) => {
    if (!browser) return context.skip(CHROMIUM_MISSING);
    await ask(CUSTOM_DOMAIN);
    const items = await traceItems(page);
    const kinds = items.map((item) => item.kind);
    expect(kinds.slice(0, 2)).toEqual(["received", "question"]);
    expect(kinds.at(-1)).toBe("answer");
    for (const kind of ["step", "model", "code", "docs-command", "observation", "final", "run-end"])
      expect(kinds).toContain(kind);
    expect(items.filter((item) => item.kind === "step").map((item) => item.text)).toEqual([
      "Step 1",
      "Step 2",
      "Step 3",
    ]);
    const commands = items.filter((item) => item.kind === "docs-command").map((item) => item.text);
    expect(commands.some((text) => text.startsWith("$ cat '/customize/custom-domain.mdx'\n"))).toBe(true);

    // Streaming, not one buffered reply: the first item arrived about the whole run before the
    // answer (the server's own total), so the user watched the steps happen.
    const answer = page.locator(".message.answer").last();
    const answerAt = Number(await answer.getAttribute("data-received-at"));
    const totalMs = Number(await answer.getAttribute("data-total-ms"));
    expect(totalMs).toBeGreaterThan(100);
    expect(answerAt - items[0]!.receivedAt).toBeGreaterThan(totalMs / 2);
    for (const item of items.slice(0, -1)) expect(item.receivedAt).toBeLessThanOrEqual(answerAt);

    expect(await answer.locator(".citations li").allInnerTexts()).toEqual([
      "/customize/custom-domain.mdx ✓ read in this run",
    ]);
    // Every sentence of the answer is quoted from the page it cites.
    const pageText = readFileSync(join(docsDir, "customize/custom-domain.mdx"), "utf8").replace(/\s+/g, " ");
    const answerText = (await answer.locator(".answer-text").textContent())?.trim() ?? "";
    expect(answerText.length).toBeGreaterThan(20);
    for (const sentence of answerText.split(/(?<=[.!?:])\s+/)) expect(pageText).toContain(sentence);
    await page.screenshot({ path: join(OUTPUT_DIR, "laptop-answer.png") });
  }, 90_000);

  it("sends an uploaded image with the question: the request and the trace show count, type and size", async (context) => {
    if (!browser) return context.skip(CHROMIUM_MISSING);
    await page.setInputFiles("#images", { name: "pixel.png", mimeType: "image/png", buffer: PIXEL_PNG });
    expect(await page.locator("#attachments li").allInnerTexts()).toEqual([
      "pixel.png · image/png · 70 bytes",
    ]);
    const requested = page.waitForRequest((request) => request.url().endsWith("/api/ask"));
    await ask("Which fonts can I use?");
    // Chromium does not show a file upload's bytes to the page's observers (postData is null),
    // so the request is checked by its form type here, and by what the server says it received
    // (the stream's first event); then the agent's own run-start says the image reached the model.
    const request = await requested;
    expect(request.headers()["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    const items = await traceItems(page);
    expect(items.filter((item) => item.kind === "received").map((item) => item.text)).toEqual([
      "Received 1 image: pixel.png (image/png, 70 bytes) · executor quickjs · model scripted",
    ]);
    expect(items.filter((item) => item.kind === "images").map((item) => item.text)).toEqual([
      "Images 1 image sent to the model: image/png, 70 bytes",
    ]);
    expect(await page.locator(".message.user").last().locator("img").count()).toBe(1);
    await page.screenshot({ path: join(OUTPUT_DIR, "laptop-image.png") });
  }, 90_000);

  it("refuses a file that is not an image, saying which and what to attach", async (context) => {
    if (!browser) return context.skip(CHROMIUM_MISSING);
    await page.setInputFiles("#images", {
      name: "notes.png",
      mimeType: "image/png",
      buffer: Buffer.from("just text"),
    });
    await page.fill("#question", "Which fonts can I use?");
    await page.click("#send");
    await page.waitForSelector("#form-error:not([hidden])");
    expect(await page.textContent("#form-error")).toBe(
      "notes.png is not a PNG, JPEG, GIF or WebP image (the browser called it image/png); attach one of those",
    );
    expect(await page.locator(".message.failed").last().textContent()).toBe(
      "notes.png is not a PNG, JPEG, GIF or WebP image (the browser called it image/png); attach one of those",
    );
    answersSoFar++; // the refused question took its place in the chat
  });

  it("offers the executors the app has, each usable with a model that writes its language", async (context) => {
    if (!browser) return context.skip(CHROMIUM_MISSING);
    const options = await page.$$eval("#executor option", (list) =>
      list.map((o) => {
        const option = o as unknown as { value: string; disabled: boolean };
        return { value: option.value, text: o.textContent, disabled: option.disabled };
      }),
    );
    // QuickJS, Python in Pyodide and Python in a micro-VM (where the host can boot one; else the
    // switch's tooltip says why not); the scripted model writes both languages (it reads the
    // language from the prompt the agent renders for the executor), so all are offered with it.
    expect(options).toEqual([
      { value: "quickjs", text: "QuickJS (JavaScript)", disabled: false },
      { value: "python", text: "Pyodide (Python)", disabled: false },
      ...(VM_READY ? [{ value: "microvm", text: "Python in a micro-VM (QEMU)", disabled: false }] : []),
    ]);
    if (VM_READY) expect(await page.getAttribute("#executor", "title")).toBe("");
    else
      expect(await page.getAttribute("#executor", "title")).toMatch(
        /^Python in a micro-VM \(QEMU\) is not available on this host: .+ is missing \(sudo apt-get install -y /,
      );
    expect(await page.isDisabled("#executor")).toBe(false);
    expect(await page.isHidden("#executor-note")).toBe(true);
    // Each executor answers, its code running where the switch says, citing the page it read (the
    // micro-VM's machine boots for its first question: a few seconds under TCG).
    for (const option of options) {
      await page.selectOption("#executor", option.value);
      await ask(CUSTOM_DOMAIN);
      const items = await traceItems(page);
      expect(items[0]?.text).toBe(`Received executor ${option.value} · model scripted`);
      const language = option.value === "quickjs" ? "javascript" : "python";
      const code = items.filter((item) => item.kind === "code").map((item) => item.text);
      expect(code).toHaveLength(3);
      for (const text of code) expect(text.startsWith(`Code (${language})`)).toBe(true);
      expect(await page.locator(".message.answer").last().locator(".citations li").allInnerTexts()).toEqual([
        "/customize/custom-domain.mdx ✓ read in this run",
      ]);
    }
    await page.screenshot({ path: join(OUTPUT_DIR, "laptop-python-answer.png") });
    await page.selectOption("#executor", "quickjs");
    // The micro-VM's machine stays up for later questions, until the demo stops.
    if (VM_READY) expect(qemuDescendants(demo!.child.pid!)).toHaveLength(1);
  }, 240_000);

  it("shows markup from the docs and the question as text, never as elements", async (context) => {
    if (!browser) return context.skip(CHROMIUM_MISSING);
    await ask('What does the zebracorn widget render? <b id="bold-from-question">x</b>');
    for (const id of ["injected-from-docs", "bold-from-docs", "bold-from-question"])
      expect(await page.locator(`#${id}`).count()).toBe(0);
    const commands = (await traceItems(page)).filter((item) => item.kind === "docs-command");
    const cat = commands.find((item) => item.text.startsWith("$ cat '/guides/zebracorn.mdx'"));
    expect(cat?.text).toContain('<img src="x" id="injected-from-docs"> and <b id="bold-from-docs">bold</b>');
    expect(await page.locator(".message.user").last().textContent()).toBe(
      'What does the zebracorn widget render? <b id="bold-from-question">x</b>',
    );
  }, 90_000);

  it("shows memories filed and recalled in the trace, lists them in the panel, and forgets them", async (context) => {
    if (!browser) return context.skip(CHROMIUM_MISSING);
    await ask("Remember that I prefer TypeScript examples.");
    const filed = (await traceItems(page)).filter((item) => item.kind === "memory");
    // Durations follow the machine's load; a second or more shows as seconds ("1.1 s").
    expect(filed.map((item) => item.text.replace(/(?:\d+ ms|\d+(?:\.\d+)? s)\)/, "N ms)"))).toEqual([
      "Memory recalled for the question (0, N ms)",
      "Memory filed by the agent (1, N ms)\nI prefer TypeScript examples.",
      "Memory filed by the agent (1, N ms)\ndemo — prefers → TypeScript examples",
      expect.stringMatching(
        /^Session transcript filed \(4 drawers, session \S+, N ms\)\n+(d_\w+, ){3}d_\w+$/,
      ),
    ]);
    // The panel refreshed after the answer: the memory in its room, the fact, the transcript.
    await page.waitForSelector(".memory-drawers .drawer");
    const memoryDrawer = page
      .locator(".memory-drawers .drawer", { hasText: "I prefer TypeScript examples." })
      .filter({
        hasText: "memories ·",
      });
    expect(await memoryDrawer.count()).toBe(1);
    expect(await page.locator(".memory-facts .fact").allTextContents()).toEqual([
      "demo — prefers → TypeScript examplesForget",
    ]);
    // Rooms of the wing, then every wing: the earlier questions filed their transcripts too.
    const [memories, sessions, wing] = await page.locator(".memory-wings li").allTextContents();
    expect(memories).toBe("memories (1)");
    const transcripts = Number(/^sessions \((\d+)\)$/.exec(sessions ?? "")?.[1]);
    expect(transcripts).toBeGreaterThanOrEqual(4);
    expect(wing).toBe(`demo (${transcripts + 1})`);

    await ask("What do I prefer?");
    const recalled = (await traceItems(page)).filter((item) => item.text.startsWith("Memory recalled"));
    expect(recalled.some((item) => item.text.endsWith("\nI prefer TypeScript examples."))).toBe(true);
    expect(await page.locator(".message.answer").last().locator(".answer-text").textContent()).toContain(
      "I prefer TypeScript examples.",
    );
    await page.screenshot({ path: join(OUTPUT_DIR, "laptop-memory.png") });

    await memoryDrawer.locator("button.forget").click();
    await page.waitForSelector("#memory [role=status]:has-text('Forgot')");
    expect(await page.textContent("#memory [role=status]")).toBe(
      "Forgot the drawer in memories and ended 1 fact taken from it.",
    );
    await page.waitForFunction('!document.querySelector(".memory-facts .fact")');
    expect(await page.locator(".memory-drawers .drawer", { hasText: "memories ·" }).count()).toBe(0);

    await ask("What do I prefer?");
    const after = (await traceItems(page)).filter((item) => item.text.startsWith("Memory recalled"));
    expect(after.some((item) => item.text.includes("I prefer TypeScript examples."))).toBe(false);
  }, 120_000);

  it("fits a laptop (1280) and a phone (390) without scrolling sideways", async (context) => {
    if (!browser) return context.skip(CHROMIUM_MISSING);
    expect(await horizontalOverflow(page)).toBe(0);
    expect(pageErrors).toEqual([]);
    await page.screenshot({ path: join(OUTPUT_DIR, "laptop-1280.png") });
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true });
    try {
      await phone.goto(demo!.url);
      await phone.waitForSelector("#model option", { state: "attached" });
      await askAndWait(phone, CUSTOM_DOMAIN, 1);
      expect(await horizontalOverflow(phone)).toBe(0);
      // One column: the trace sits below the chat.
      const chat = await phone.locator(".chat").boundingBox();
      const trace = await phone.locator(".trace").boundingBox();
      expect(trace!.y).toBeGreaterThanOrEqual(chat!.y + chat!.height);
      expect(chat!.width).toBeLessThanOrEqual(390);
      await phone.screenshot({ path: join(OUTPUT_DIR, "phone-390.png"), fullPage: true });
      await phone.screenshot({ path: join(OUTPUT_DIR, "phone-390-first-screen.png") });
    } finally {
      await phone.close();
    }
  }, 90_000);

  it("Ctrl-C stops the server and leaves no process behind", async (context) => {
    if (!browser) return context.skip(CHROMIUM_MISSING);
    const chroma = JSON.parse(readFileSync(join(dataDir, "chroma", "atrium-chroma.json"), "utf8")) as {
      pid: number;
    };
    expect(alive(chroma.pid)).toBe(true);
    const qemu = qemuDescendants(demo!.child.pid!);
    expect(qemu).toHaveLength(VM_READY ? 1 : 0);
    process.kill(-demo!.child.pid!, "SIGINT");
    expect(await demo!.exited).toEqual({ code: 0, signal: null });
    expect(demo!.stdout()).toContain("Stopping the web UI…\n");
    await until(() => !alive(chroma.pid), 10_000, `the Chroma server (pid ${chroma.pid}) to exit`);
    for (const pid of qemu)
      await until(() => !alive(pid), 10_000, `the micro-VM's QEMU (pid ${pid}) to exit`);
    await until(() => !alive(-demo!.child.pid!), 10_000, "every process of the demo's group to exit");
    await expect(fetch(demo!.url)).rejects.toThrow();
  }, 60_000);
});
