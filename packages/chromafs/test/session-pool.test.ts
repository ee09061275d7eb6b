import { McpClient } from "@atrium/mcp";
import { LimitError } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionWorkerLostError } from "../src/errors.js";
import { serveDocsMcpHttp } from "../src/mcp/docs-mcp-server.js";
import { openDocsSession } from "../src/session/docs-session.js";
import { SessionWorkerPool } from "../src/session-pool/session-worker-pool.js";
import { LocalFolderStore } from "../src/store/local-folder-store.js";
import { type SmallDocsDir, writeSmallDocs } from "./fixtures/small-docs.js";
import { CORPUS_DIR } from "./oracle/disk-copy.js";
import { ORACLE_COMMANDS } from "./oracle/oracle-commands.js";

/** Seconds of CPU over the Mintlify corpus: every page read and scanned, again and again. */
const HEAVY = "for i in $(seq 1 20); do grep -rvc zzz-absent / > /dev/null; done; echo heavy-done";
/** Long enough over the small docs that the test acts while it runs. */
const HEAVY_SMALL = "for i in $(seq 1 5000); do grep -rc API / > /dev/null; done";
const ABORTED = { stdout: "", stderr: "bash: execution aborted\n", exitCode: 124 };

describe("SessionWorkerPool over the Mintlify corpus", () => {
  const store = new LocalFolderStore(CORPUS_DIR);
  let pool: SessionWorkerPool;
  beforeAll(async () => {
    pool = await SessionWorkerPool.start({ store, limits: { poolWorkers: 2 } });
  }, 60_000);
  afterAll(() => pool?.close());

  it("answers the oracle commands byte for byte as an in-process session does", async () => {
    const inProcess = await openDocsSession({ store });
    const pooled = await pool.openSession();
    for (const { command } of ORACLE_COMMANDS) {
      const ours = await pooled.exec(`R=; ${command}`, { cwd: "/" });
      const theirs = await inProcess.exec(`R=; ${command}`, { cwd: "/" });
      expect({ command, ...ours }).toEqual({
        command,
        stdout: theirs.stdout,
        stderr: theirs.stderr,
        exitCode: theirs.exitCode,
      });
    }
    await pooled.close();
  }, 120_000);

  it("pins each session to the worker with the fewest, and a heavy command on one never holds up another's", async () => {
    const before = pool.sessionsPerWorker();
    const heavy = await pool.openSession();
    const light = await pool.openSession();
    expect(pool.sessionsPerWorker()).toEqual(before.map((count) => count + 1));
    const finished: string[] = [];
    const heavyRun = heavy.exec(HEAVY).then((result) => {
      finished.push("heavy");
      return result;
    });
    const answers: string[] = [];
    for (let n = 0; n < 20; n++) {
      const result = await light.exec(`ls /api-playground | head -${(n % 3) + 1}; cat /index.mdx | wc -l`);
      answers.push(result.stdout);
      finished.push(`light ${n}`);
    }
    expect(await heavyRun).toEqual({ stdout: "heavy-done\n", stderr: "", exitCode: 0 });
    expect(finished.indexOf("heavy")).toBe(20); // every light command came back first
    const inProcess = await openDocsSession({ store });
    expect(answers[1]).toBe(
      (await inProcess.exec("ls /api-playground | head -2; cat /index.mdx | wc -l")).stdout,
    );
    await heavy.close();
    await light.close();
  }, 120_000);

  it("stops a running command when its signal aborts, and drops a waiting one unrun", async () => {
    const session = await pool.openSession();
    const controller = new AbortController();
    const running = session.exec(
      "for i in $(seq 1 400); do echo $i >> /tmp/ran; grep -rvc zzz-absent / > /dev/null; done",
      { signal: controller.signal },
    );
    const waiting = session.exec("echo waited > /tmp/waited", { signal: controller.signal });
    // Let the loop get going (400 rounds take many seconds), then cancel both.
    await new Promise((resolve) => setTimeout(resolve, 500));
    controller.abort();
    expect(await running).toEqual(ABORTED);
    expect(await waiting).toEqual(ABORTED);
    // The loop stopped part way, and the waiting command never ran.
    const after = await session.exec("cat /tmp/ran 2>/dev/null | wc -l; ls /tmp/waited");
    expect(Number(after.stdout)).toBeLessThan(400);
    expect(after.stderr).toBe("ls: cannot access '/tmp/waited': No such file or directory\n");
    await session.close();
  }, 120_000);
});

describe("atrium-docs MCP server on its session pool", () => {
  it("answers one client's light calls while another's heavy call runs, and a cancelled call stops", async () => {
    const served = await serveDocsMcpHttp({
      store: new LocalFolderStore(CORPUS_DIR),
      poolLimits: { poolWorkers: 2 },
    });
    const heavy = await McpClient.connect("heavy", { type: "http", url: served.url });
    const light = await McpClient.connect("light", { type: "http", url: served.url });
    try {
      const finished: string[] = [];
      const heavyCall = heavy.callTool("bash", { command: HEAVY }).then((result) => {
        finished.push("heavy");
        return result.structuredContent;
      });
      for (let n = 0; n < 10; n++) {
        const result = await light.callTool("bash", { command: "ls /zh | head -2" });
        expect(result.structuredContent).toEqual({
          stdout: "advanced-support.mdx\nagent\n",
          stderr: "",
          exitCode: 0,
        });
        finished.push(`light ${n}`);
      }
      expect(await heavyCall).toEqual({ stdout: "heavy-done\n", stderr: "", exitCode: 0 });
      expect(finished.indexOf("heavy")).toBe(10);

      const controller = new AbortController();
      const cancelled = heavy
        .callTool(
          "bash",
          {
            command:
              "for i in $(seq 1 400); do echo $i >> /tmp/ran; grep -rvc zzz-absent / > /dev/null; done",
          },
          { signal: controller.signal },
        )
        .catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 500));
      controller.abort();
      expect(await cancelled).toBeInstanceOf(Error);
      // The worker stopped the loop: the session's next call runs at once and finds it cut short.
      const after = await heavy.callTool("bash", { command: "cat /tmp/ran 2>/dev/null | wc -l" });
      expect(Number((after.structuredContent as { stdout: string }).stdout)).toBeLessThan(400);
    } finally {
      await heavy.close();
      await light.close();
      await served.close();
    }
  }, 120_000);
});

describe("SessionWorkerPool over small docs", () => {
  let dir: SmallDocsDir;
  beforeAll(() => {
    dir = writeSmallDocs();
  });
  afterAll(() => dir.remove());

  it("keeps a session's /tmp and directory across commands, private to it, with its groups' pages only", async () => {
    const pool = await SessionWorkerPool.start({
      store: new LocalFolderStore(dir.root),
      limits: { poolWorkers: 1 },
    });
    try {
      const staff = await pool.openSession({ groups: ["staff"] });
      const guest = await pool.openSession();
      expect(await staff.exec("echo mine > /tmp/note; cd /internal")).toEqual({
        stdout: "",
        stderr: "",
        exitCode: 0,
      });
      expect(staff.cwd).toBe("/internal");
      expect(await staff.exec("cat /tmp/note; ls; grep -rl Falcon /")).toEqual({
        stdout: "mine\nroadmap.md\nwelcome.md\n/internal/roadmap.md\n",
        stderr: "",
        exitCode: 0,
      });
      expect(await guest.exec("ls /tmp; ls /internal; grep -rl Falcon /")).toEqual({
        stdout: "welcome.md\n",
        stderr: "",
        exitCode: 1,
      });
      expect(staff.access).toEqual({ groups: ["staff"] });
    } finally {
      await pool.close();
    }
  });

  it("gives each session one turn per round on a busy worker, and bounds a session's queue", async () => {
    const pool = await SessionWorkerPool.start({
      store: new LocalFolderStore(dir.root),
      limits: { poolWorkers: 1, maxConcurrentCommandsPerWorker: 1, maxQueuedCommandsPerSession: 3 },
    });
    try {
      const busy = await pool.openSession();
      const other = await pool.openSession();
      const order: string[] = [];
      const run = (session: typeof busy, name: string) =>
        session.exec(`echo ${name}`).then((result) => order.push(result.stdout.trim()));
      const all = [run(busy, "a1"), run(busy, "a2"), run(busy, "a3"), run(busy, "a4"), run(other, "b1")];
      await expect(busy.exec("echo a5")).rejects.toThrow(LimitError);
      await expect(busy.exec("echo a5")).rejects.toThrow(
        "this docs session already has 3 commands waiting (at most 3); its commands run one at a time, so wait for earlier ones before sending more",
      );
      await Promise.all(all);
      // a1 was running when b1 arrived; b1 then had the next turn, before a2.
      expect(order).toEqual(["a1", "b1", "a2", "a3", "a4"]);
    } finally {
      await pool.close();
    }
  });

  it("fails only a lost worker's sessions, with an error saying so, and goes on in a new worker", async () => {
    const pool = await SessionWorkerPool.start({
      store: new LocalFolderStore(dir.root),
      limits: { poolWorkers: 2 },
    });
    try {
      const doomed = await pool.openSession();
      const bystander = await pool.openSession();
      expect(pool.sessionsPerWorker()).toEqual([1, 1]);
      await doomed.exec("echo kept > /tmp/note; cd /guides");
      await bystander.exec("echo safe > /tmp/note");
      const failure = (error: unknown) => error;
      const running = doomed.exec(HEAVY_SMALL).catch(failure);
      const waiting = doomed.exec("echo never").catch(failure);
      await pool.replaceWorker(0, "stuck in a test");
      const lost =
        "the worker thread running this docs session stopped (stuck in a test); its /tmp files are lost. Run the command again: it runs in a new worker";
      expect(await running).toBeInstanceOf(SessionWorkerLostError);
      expect(await running).toMatchObject({ message: lost, code: "UNAVAILABLE", isRetryable: true });
      expect(await waiting).toMatchObject({ message: lost });
      expect(await bystander.exec("cat /tmp/note")).toEqual({ stdout: "safe\n", stderr: "", exitCode: 0 });
      // The session goes on in a new worker: same directory, a fresh /tmp.
      expect(await doomed.exec("pwd; ls /tmp; ls")).toEqual({
        stdout: "/guides\ndeploy.md\nquickstart.md\n",
        stderr: "",
        exitCode: 0,
      });
    } finally {
      await pool.close();
    }
  }, 60_000);
});
