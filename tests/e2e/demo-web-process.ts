import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";

const DEMO_DIR = fileURLToPath(new URL("../../apps/demo", import.meta.url));

export interface WebDemo {
  url: string;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `npm run demo -- --web` as a user runs it (a child process on sources through tsx, in its own
 * process group as a terminal's foreground job is), resolved once it printed its URL.
 */
export async function startWebDemo(args: readonly string[], timeoutMs = 90_000): Promise<WebDemo> {
  const child = spawn(
    process.execPath,
    ["--conditions=@atrium/source", "--import", "tsx", "src/main.ts", "--web", ...args],
    {
      cwd: DEMO_DIR,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ATRIUM_MODEL: "", NO_COLOR: "1" },
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const url = /^Web UI: (http:\/\/\S+)/m.exec(stdout)?.[1];
    if (url) return { url, child, stdout: () => stdout, stderr: () => stderr, exited };
    if (child.exitCode !== null || Date.now() > deadline) {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
      throw new Error(`the web demo printed no URL (exit ${child.exitCode}):\n${stdout}\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A laptop-sized tab on the demo's page, resolved once its configuration filled the switches;
 * the page's script errors go to `errors`, for a test to assert there were none.
 */
export async function openDemoPage(browser: Browser, url: string, errors: string[] = []): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(url);
  await page.waitForSelector("#model option", { state: "attached" });
  return page;
}

/** Ends a demo that a failed test left running, with its process group (Chroma, QEMU). */
export function killWebDemo(demo: WebDemo | undefined): void {
  if (demo && demo.child.exitCode === null && demo.child.signalCode === null)
    process.kill(-demo.child.pid!, "SIGKILL");
}
