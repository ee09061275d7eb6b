// Issue 14 × 15: the demo with its code in a QEMU micro-VM (@atrium/microvm, Python in the guest,
// the network off). The same docs question as demo-python, asked of one assistant (the scripted
// docs model, ChromaFs on a real Chroma server) once in QuickJS and once in the micro-VM: the
// model reads Python from the prompt, the docs tools are called from guest Python through the
// agent channel, and the answer, its citation and the ranking are QuickJS's. Then the CLI as a
// user runs it: `--executor microvm` boots the machine while Chroma starts, and Ctrl-C in the
// middle of a question leaves no QEMU behind (checked by its PID).
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
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
import type { ExecutorChoice } from "../../apps/demo/src/web/executor-choice.ts";
import { microVmChoice } from "../../apps/demo/src/web/microvm-choice.ts";
import { qemuDescendants } from "../../packages/microvm/test/qemu-processes.ts";
import { corpusCopy, removeDirs, SOME_PAGES } from "./demo-corpus.js";
import { alive, until } from "./demo-web-process.js";

const DEMO_DIR = fileURLToPath(new URL("../../apps/demo", import.meta.url));
const QUESTION = "How do I host my documentation on a custom domain?";

// Real guests need QEMU, a kernel, musl-gcc, busybox-static and Debian's python3 (.ci/setup.sh
// installs them); without them this file skips, except under CI=true where it must run.
const VM_READY =
  process.env.CI === "true" ||
  ["/usr/bin/qemu-system-x86_64", "/usr/bin/musl-gcc", "/bin/busybox", "/usr/bin/python3"].every((path) =>
    existsSync(path),
  );

const commands = (events: AssistantEvent[]) =>
  events.flatMap((e) => (e.type === "docs-command" ? [e.command] : []));
const code = (events: AssistantEvent[]) => events.flatMap((e) => (e.type === "code" ? [e.language] : []));
const observations = (events: AssistantEvent[]) =>
  events.flatMap((e) => (e.type === "observation" ? [e.text] : []));
const answerOf = (events: AssistantEvent[]) => events.at(-1) as AnswerEvent;

describe.skipIf(!VM_READY)("demo × Python in a micro-VM", () => {
  let docsDir: string;
  let dataDir: string;
  let docs: DocsLibrary;
  let assistant: Assistant;
  let microvm: ExecutorChoice;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    const choice = await microVmChoice();
    if (!("factory" in choice)) throw new Error(`the micro-VM is ${choice.reason}`);
    microvm = choice;
    docsDir = corpusCopy(SOME_PAGES);
    dataDir = mkdtempSync(join(tmpdir(), "atrium-demo-microvm-"));
    // The machine boots while Chroma starts, as the CLI does it.
    [docs] = await Promise.all([
      openDocsLibrary({ corpusDir: docsDir, dataDir, collection: "docs" }),
      microvm.prewarm?.(),
    ]);
    assistant = await createAssistant({ docs, model: scriptedDocsModel() });
  }, 180_000);
  afterAll(async () => {
    try {
      for (const child of children)
        if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
      await assistant?.close();
      await docs?.close();
      await microvm?.shutdown?.();
    } finally {
      removeDirs(docsDir, dataDir);
    }
  });

  const ask = async (executor?: ExecutorChoice) => {
    const events: AssistantEvent[] = [];
    const options = { user: { id: "alice" }, ...(executor ? { executor: executor.factory } : {}) };
    for await (const event of assistant.ask(QUESTION, options)) events.push(event);
    return events;
  };

  it("writes Python for the guest and answers as in QuickJS, citing the page it read", async () => {
    const inQuickJs = await ask();
    const inVm = await ask(microvm);
    expect(code(inVm)).toEqual(["python", "python", "python"]);
    expect(code(inQuickJs)).toEqual(["javascript", "javascript", "javascript"]);
    // The docs tools ran on the host, called from guest Python one after another (the second
    // ranking pass looks again at the pages the first found).
    const POOL =
      "'/customize/custom-domain.mdx' '/quickstart.mdx' '/customize/fonts.mdx' '/create/redirects.mdx' '/cli/preview.mdx' '/cli/install.mdx' '/deploy/ci.mdx' '/organize/hidden-pages.mdx' '/index.mdx'";
    expect(commands(inVm)).toEqual([
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
    expect([...commands(inQuickJs)].sort()).toEqual([...commands(inVm)].sort());
    // The ranking the guest printed is QuickJS's, to the digit, and so is the page reading.
    expect(observations(inVm)[0]).toMatch(/^Execution logs:\nweights: custom=\d\.\d{3} /);
    expect(observations(inVm)[0]).toBe(observations(inQuickJs)[0]);
    // The pages read: the guest printed both in full (15,671 characters), under the agent's cut
    // (20,000) and QuickJS's own, so the observation is the whole print, the same in both.
    const printed = `Execution logs:\n${["customize/custom-domain.mdx", "customize/fonts.mdx"]
      .map((page) => `==> /${page} <==\n${readFileSync(join(docsDir, page), "utf8")}\n`)
      .join("")}`;
    const read = observations(inVm)[1]!;
    // (print's own last newline is not part of the observation)
    expect(read).toBe(printed.slice(0, -1));
    expect(read).toBe(observations(inQuickJs)[1]);

    const answer = answerOf(inVm);
    expect(answer.state).toBe("success");
    expect(answer.citations).toEqual([{ path: "/customize/custom-domain.mdx", verified: true }]);
    expect(answer.answer).toBe(
      "To host your documentation on a custom domain: The `_acme-challenge` record authorizes Let's Encrypt to issue a TLS certificate for your domain, and the `_cf-custom-hostname` record verifies that you control the domain.",
    );
    expect(answerOf(inQuickJs).answer).toBe(answer.answer);
    expect(answerOf(inQuickJs).citations).toEqual(answer.citations);
  }, 120_000);

  it("npm run demo -- --executor microvm boots the machine, and Ctrl-C leaves no QEMU behind", async () => {
    const data = mkdtempSync(join(dataDir, "cli-"));
    const child = spawn(
      process.execPath,
      [
        "--conditions=@atrium/source",
        "--import",
        "tsx",
        "src/main.ts",
        ...["--corpus", docsDir, "--data", data, "--no-memory", "--executor", "microvm", "-q", QUESTION],
      ],
      {
        cwd: DEMO_DIR,
        // Its own process group, as a terminal gives a foreground job, so Ctrl-C reaches the group.
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, ATRIUM_MODEL: "", NO_COLOR: "1" },
      },
    );
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    );
    await until(() => stdout.includes("━━ Step 1 ━━") || child.exitCode !== null, 120_000, "the first step");
    expect(stderr).not.toMatch(/^demo:/m);
    expect(stdout).toContain("Executor: Python in a micro-VM (QEMU) (--executor microvm)\n");
    // Booted while Chroma started: the machine is there when the first step runs.
    const qemu = qemuDescendants(child.pid!);
    expect(qemu).toHaveLength(1);
    expect(alive(qemu[0]!)).toBe(true);
    process.kill(-child.pid!, "SIGINT");
    const exit = await exited;
    if (exit.code !== 130) console.log(stdout, stderr);
    expect(exit).toEqual({ code: 130, signal: null });
    expect(stderr).toContain("demo: interrupted; stopped the question in flight and the Chroma server\n");
    await until(() => !alive(qemu[0]!), 10_000, `QEMU (pid ${qemu[0]}) to exit`);
    await until(() => !alive(-child.pid!), 10_000, "every process of the demo's group to exit");
  }, 180_000);
});
