import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { machinePaths } from "../src/named-machine/machine-store.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const CLI = ["--conditions=@atrium/source", "--import", "tsx", join(PACKAGE_DIR, "src/cli/main.ts")];
const MiB = 1024 * 1024;

let env: NodeJS.ProcessEnv;

/** The real CLI in a child process, on sources; stdout is left for the test to read (or not). */
function start(args: string[]): ChildProcess {
  return spawn(process.execPath, [...CLI, ...args], {
    cwd: PACKAGE_DIR,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function collect(child: ChildProcess, stream: "stdout" | "stderr"): () => string {
  let text = "";
  child[stream]?.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
  return () => text;
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("close", resolve);
  });
}

async function atriumVm(
  args: string[],
): Promise<{ stdout: string; stderr: string; exitCode: number | null }> {
  const child = start(args);
  const stdout = collect(child, "stdout");
  const stderr = collect(child, "stderr");
  const exitCode = await exited(child);
  return { stdout: stdout(), stderr: stderr(), exitCode };
}

/** Peak resident memory (VmHWM) of a process so far, in MiB, sampled until `stop()`. */
function watchPeakRss(pid: number): { peakMiB: () => number; stop: () => void } {
  let peak = 0;
  const sample = () => {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (match) peak = Math.max(peak, Number(match[1]) / 1024);
    } catch {
      // exited
    }
  };
  const timer = setInterval(sample, 50);
  return {
    peakMiB: () => {
      sample();
      return peak;
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * Reads `stream` at about `bytesPerSecond` for `slowMs` from its first byte, then as fast as it
 * can until it ends; resolves to the bytes read.
 */
async function readSlowly(
  stream: NodeJS.ReadableStream & { read(size?: number): Buffer | null },
  bytesPerSecond: number,
  slowMs: number,
): Promise<number> {
  let total = 0;
  let ended = false;
  let fastAt = Number.POSITIVE_INFINITY;
  stream.once("end", () => (ended = true));
  stream.pause();
  while (!ended) {
    if (Date.now() < fastAt) {
      const chunk = stream.read(bytesPerSecond / 10) ?? stream.read();
      if (chunk && total === 0) fastAt = Date.now() + slowMs;
      if (chunk) total += chunk.length;
      await sleep(100);
    } else {
      for (let chunk = stream.read(); chunk; chunk = stream.read()) total += chunk.length;
      await sleep(5);
    }
  }
  return total;
}

describe.skipIf(SKIP_VM_SUITES)("atrium-vm output and control under attack", () => {
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "atrium-vm-cli-data-"));
    env = { ...process.env, ATRIUM_VM_STATE: join(work, "state"), ATRIUM_VM_QUIET: "1" };
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it("`run -- 'cat /dev/zero'` into a slow reader: the guest waits for the reader, the CLI's memory stays flat", async () => {
    const child = start(["run", "--image", "busybox", "--timeout", "3000", "--", "cat /dev/zero"]);
    const rss = watchPeakRss(child.pid as number);
    const stderr = collect(child, "stderr");
    // Slow past the command's 3 s timeout: the guest kills it while it waits for our reader.
    const read = await readSlowly(
      child.stdout as NodeJS.ReadableStream & { read(): Buffer | null },
      640 * 1024,
      4000,
    );
    const exitCode = await exited(child);
    rss.stop();
    console.log(
      `run cat /dev/zero, reader at 640 KiB/s: ${(read / MiB).toFixed(1)} MiB read, CLI peak RSS ${rss.peakMiB().toFixed(0)} MiB`,
    );
    expect({ exitCode, stderr: stderr() }).toEqual({
      exitCode: 124,
      stderr: "atrium-vm: the command ran past 3000 ms and was killed\n",
    });
    // Unpaced, 3 s of `cat /dev/zero` is over 100 MiB (the audit saw the CLI reach 1 GB); paced,
    // what was read slowly plus what the guest's virtio queue held.
    expect(read).toBeLessThan(48 * MiB);
    expect(rss.peakMiB()).toBeLessThan(200);
  }, 180_000);

  it("`run` whose reader goes away (EPIPE) kills the command and exits 1 with one line", async () => {
    const child = start(["run", "--image", "busybox", "--", "cat /dev/zero"]);
    const stderr = collect(child, "stderr");
    let read = 0;
    await new Promise<void>((resolve) => {
      child.stdout?.on("data", (chunk: Buffer) => {
        read += chunk.byteLength;
        if (read >= MiB) resolve();
      });
    });
    child.stdout?.destroy();
    expect(await exited(child)).toBe(1);
    expect(stderr()).toBe("atrium-vm run: stdout was closed (EPIPE); the command was killed\n");
  }, 180_000);

  it("`start` survives bad control lines and a stopped `exec` client, with its memory flat", async () => {
    expect((await atriumVm(["create", "box", "--image", "busybox"])).exitCode).toBe(0);
    const serving = start(["start", "box"]);
    const servingOut = collect(serving, "stdout");
    const end = Date.now() + 180_000;
    while (!servingOut().includes(" is running ")) {
      expect(serving.exitCode).toBeNull();
      expect(Date.now()).toBeLessThan(end);
      await sleep(100);
    }
    const socketPath = machinePaths("box", { stateDir: env.ATRIUM_VM_STATE as string }).socket;
    const ask = (line: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(socketPath);
        let reply = "";
        socket.setEncoding("utf8");
        socket.on("data", (chunk: string) => (reply += chunk));
        socket.once("error", reject);
        socket.once("close", () => resolve(reply));
        socket.write(line);
      });
    // The audit's attack: one line that is not JSON used to kill `start` and its VM.
    expect(await ask("not json\n")).toBe(
      `${JSON.stringify({ type: "error", message: `a control line is not JSON (Unexpected token 'o', "not json" is not valid JSON)` })}\n`,
    );
    expect(await ask('{"op":"exec","argv":5}\n')).toBe(
      `${JSON.stringify({ type: "error", message: "bad control request: argv must be a non-empty list of strings" })}\n`,
    );
    expect(await ask("[1]\n")).toBe(
      `${JSON.stringify({ type: "error", message: "bad control request: not a JSON object" })}\n`,
    );
    expect(serving.exitCode).toBeNull();
    expect(await atriumVm(["exec", "box", "--", "echo ok"])).toEqual({
      stdout: "ok\n",
      stderr: "",
      exitCode: 0,
    });

    // A client that stops reading, then is stopped outright: `start` holds the guest back.
    const rss = watchPeakRss(serving.pid as number);
    const client = start(["exec", "box", "--", "cat /dev/zero"]);
    client.stdout?.pause();
    await sleep(3000);
    client.kill("SIGSTOP");
    await sleep(2000);
    console.log(
      `start serving exec 'cat /dev/zero' to a stopped client: start peak RSS ${rss.peakMiB().toFixed(0)} MiB`,
    );
    // Unpaced, `start` passed 200 MiB within these 2 s (the audit saw 1.7 GB).
    expect(rss.peakMiB()).toBeLessThan(160);
    client.kill("SIGKILL");
    await exited(client);
    // An `exec` whose reader goes away (EPIPE) ends with one line, and so does its command.
    const piped = start(["exec", "box", "--", "cat /dev/zero"]);
    const pipedErr = collect(piped, "stderr");
    let read = 0;
    await new Promise<void>((resolve) => {
      piped.stdout?.on("data", (chunk: Buffer) => {
        read += chunk.byteLength;
        if (read >= MiB) resolve();
      });
    });
    piped.stdout?.destroy();
    expect(await exited(piped)).toBe(1);
    expect(pipedErr()).toBe("atrium-vm exec: stdout was closed (EPIPE); the command was killed\n");
    // Both commands went with their clients; the machine takes the next one.
    await sleep(500);
    expect(serving.exitCode).toBeNull();
    expect(await atriumVm(["exec", "box", "--", "ps | grep -c 'cat /dev/zer[o]'; echo after"])).toEqual({
      stdout: "0\nafter\n",
      stderr: "",
      exitCode: 0,
    });
    rss.stop();
    expect(await atriumVm(["stop", "box"])).toEqual({ stdout: "stopped box\n", stderr: "", exitCode: 0 });
    expect(await exited(serving)).toBe(0);
  }, 300_000);
});
