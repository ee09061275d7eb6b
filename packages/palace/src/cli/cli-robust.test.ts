import { execFileSync, spawn } from "node:child_process";
import { access, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ChromaServer, startChromaServer } from "@atrium/chroma";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliArgs } from "../../../../tests/test-target.ts";

/**
 * Issue 25, through the real CLI: `mine` and `hook claude-code` pointed at a device or a FIFO
 * answer with one clear line and exit 1, within seconds (the old CLI read /dev/zero to 11 GB and
 * waited on a FIFO until killed; the child is killed after 60 s so a regression fails, not hangs).
 */

const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number | null;
}

function atriumPalace(args: string[], env: Record<string, string>, input = ""): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliArgs(PACKAGE_DIR), ...args], {
      cwd: PACKAGE_DIR,
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("close", (exitCode) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, exitCode });
    });
    child.stdin.end(input);
  });
}

describe("atrium-palace reads only regular files", { timeout: 120_000 }, () => {
  let root: string;
  let server: ChromaServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "atrium-palace-cli-robust-"));
    server = await startChromaServer({ path: join(root, "chroma") });
    env = { ATRIUM_PALACE: join(root, "home"), ATRIUM_CHROMA_URL: server.url };
  });

  afterAll(async () => {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it("mine /dev/zero --mode convos fails at once, naming the device", async () => {
    expect(await atriumPalace(["mine", "/dev/zero", "--mode", "convos", "--wing", "me"], env)).toEqual({
      stdout: "",
      stderr:
        "atrium-palace mine: not a regular file: /dev/zero is a character device; give a file or a folder of files to mine\n",
      exitCode: 1,
    });
  });

  it("hook claude-code with a FIFO or /dev/zero as the transcript fails at once, naming it", async () => {
    const fifo = join(root, "session.jsonl");
    execFileSync("mkfifo", [fifo]);
    const hook = (transcript: string) =>
      atriumPalace(
        ["hook", "claude-code", "--wing", "me"],
        env,
        JSON.stringify({ hook_event_name: "Stop", transcript_path: transcript, cwd: root }),
      );
    expect(await hook(fifo)).toEqual({
      stdout: "",
      stderr: `atrium-palace hook: not a regular file: ${fifo} is a FIFO (named pipe); give a file or a folder of files to mine\n`,
      exitCode: 1,
    });
    expect(await hook("/dev/zero")).toEqual({
      stdout: "",
      stderr:
        "atrium-palace hook: not a regular file: /dev/zero is a character device; give a file or a folder of files to mine\n",
      exitCode: 1,
    });
  });

  it("import of a missing file fails and creates no palace", async () => {
    const home = join(root, "never-made");
    const missing = join(root, "missing.jsonl");
    expect(await atriumPalace(["import", missing], { ...env, ATRIUM_PALACE: home })).toEqual({
      stdout: "",
      stderr: `atrium-palace import: ${missing} does not exist; give a file written by \`atrium-palace export\`\n`,
      exitCode: 1,
    });
    await expect(access(home)).rejects.toThrow("ENOENT");
  });
});
