import { type ChildProcess, spawn } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliArgs } from "../../../tests/test-target.ts";
import { qemuDescendants } from "./qemu-processes.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
// tsx by its resolved URL (cliArgs), so the CLI also starts in a working directory outside the
// repository; the built pass runs the installed bin instead.
const CLI = cliArgs(PACKAGE_DIR);

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number | null;
}

let env: NodeJS.ProcessEnv;

function start(args: string[], cwd = PACKAGE_DIR): ChildProcess {
  return spawn(process.execPath, [...CLI, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
}

/** The real CLI in a child process: sources through tsx, or the installed bin (test-target.ts). */
function atriumVm(args: string[], cwd = PACKAGE_DIR): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = start(args, cwd);
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("close", (exitCode) => resolve({ stdout, stderr, exitCode }));
  });
}

/** `atrium-vm start NAME` in the background, resolved once it says the machine runs. */
async function startServing(
  name: string,
): Promise<{ child: ChildProcess; output: () => string; done: Promise<number | null> }> {
  const child = start(["start", name]);
  let stdout = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  const done = new Promise<number | null>((resolve) => child.once("close", resolve));
  const end = Date.now() + 180_000;
  while (!stdout.includes(" is running ")) {
    if (child.exitCode !== null) throw new Error(`atrium-vm start ${name} exited early: ${stdout}`);
    if (Date.now() > end) throw new Error("atrium-vm start did not come up");
    await sleep(100);
  }
  return { child, output: () => stdout, done };
}

function qemuChildrenOf(parent: number): number[] {
  // The QEMU of a named machine is started by its `start` process.
  return qemuDescendants(parent);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("atrium-vm without a guest", () => {
  beforeAll(() => {
    env = { ...process.env, ATRIUM_VM_STATE: join(tmpdir(), "atrium-vm-cli-no-guest"), ATRIUM_VM_QUIET: "1" };
  });

  it("prints each command's help and exits 0", async () => {
    for (const command of [
      "run",
      "exec",
      "create",
      "start",
      "stop",
      "ls",
      "rm",
      "cp",
      "pack",
      "snapshot",
      "restore",
      "fork",
      "doctor",
    ]) {
      const result = await atriumVm([command, "--help"]);
      expect(result.exitCode, command).toBe(0);
      expect(result.stdout, command).toMatch(new RegExp(`^Usage:\\s+atrium-vm ${command}`));
      expect(result.stderr).toBe("");
    }
  }, 120_000);

  it("exits 2 with one line naming the mistake and the --help to read, 1 with one line on a failure", async () => {
    expect(await atriumVm(["frobnicate"])).toEqual({
      stdout: "",
      stderr:
        'atrium-vm: unknown command "frobnicate": use run, create, start, exec, cp, stop, ls, rm, pack, snapshot, restore, fork or doctor (see atrium-vm --help)\n',
      exitCode: 2,
    });
    expect(await atriumVm(["run", "--image", "busybox"])).toEqual({
      stdout: "",
      stderr: "atrium-vm run: missing the command to run after -- (see atrium-vm run --help)\n",
      exitCode: 2,
    });
    expect(await atriumVm(["exec", "ghost", "--", "true"])).toEqual({
      stdout: "",
      stderr: "atrium-vm exec: no machine named ghost; create it with: atrium-vm create ghost\n",
      exitCode: 1,
    });
    expect(await atriumVm(["create", "Bad Name", "--image", "busybox"])).toEqual({
      stdout: "",
      stderr:
        'atrium-vm create: machine name "Bad Name": use 1-63 characters of a-z, 0-9, "_", "." and "-", starting with a letter or digit\n',
      exitCode: 1,
    });
    expect(await atriumVm(["cp", "a", "b"])).toEqual({
      stdout: "",
      stderr:
        "atrium-vm cp: one side must be NAME:/path in a machine and the other a host path (see atrium-vm cp --help)\n",
      exitCode: 2,
    });
    expect(await atriumVm(["pack", "run", "/etc/hostname", "--", "true"])).toEqual({
      stdout: "",
      stderr:
        'atrium-vm pack run: /etc/hostname is not an atrium-vm pack (it does not start with the pack magic "ATRIUM-VM-PACK"); packs are written by `atrium-vm pack create`\n',
      exitCode: 1,
    });
  }, 120_000);

  it("names the config file it loads, and refuses a config that shares the host's system directories", async () => {
    const project = await mkdtemp(join(tmpdir(), "atrium-vm-cli-config-"));
    try {
      const local = join(project, "atrium-vm.toml");
      await writeFile(local, 'image = "busybox"\nvolumes = [{ host = "/", guest = "/host" }]\n');
      expect(await atriumVm(["run", "--", "true"], project)).toEqual({
        stdout: "",
        stderr: `atrium-vm: using ./atrium-vm.toml from the current directory (${local}); pass --config or --image to choose\natrium-vm run: volumes.0.host: / is the host's root directory; share a directory of your own instead, or set unsafe_allow_host_path = true on this volume (unsafeAllowHostPath in the TypeScript API) to share it anyway\n`,
        exitCode: 1,
      });
      const other = join(project, "other.toml");
      await writeFile(other, 'image = "busybox"\nvolumes = [{ host = "../../../etc", guest = "/e" }]\n');
      expect(await atriumVm(["run", "--config", "other.toml", "--", "true"], project)).toEqual({
        stdout: "",
        stderr: `atrium-vm: using config ${other}\natrium-vm run: volumes.0.host: "../../../etc" climbs out of the config file's directory (${project}) to /etc; share a directory of your own instead, or set unsafe_allow_host_path = true on this volume (unsafeAllowHostPath in the TypeScript API) to share it anyway\n`,
        exitCode: 1,
      });
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  }, 60_000);

  it("reports progress on stderr unless ATRIUM_VM_QUIET=1", async () => {
    const saved = env;
    env = { ...env, ATRIUM_VM_QUIET: "0" };
    try {
      const result = await atriumVm(["pack", "run", "/etc/hostname", "--", "true"]);
      expect(result.stderr).toBe(
        'atrium-vm: verifying the pack\natrium-vm pack run: /etc/hostname is not an atrium-vm pack (it does not start with the pack magic "ATRIUM-VM-PACK"); packs are written by `atrium-vm pack create`\n',
      );
    } finally {
      env = saved;
    }
  }, 60_000);
});

describe.skipIf(SKIP_VM_SUITES)("atrium-vm with real guests", () => {
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "atrium-vm-cli-"));
    env = { ...process.env, ATRIUM_VM_STATE: join(work, "state"), ATRIUM_VM_QUIET: "1" };
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it("runs a command in a throwaway machine with its output and exit code", async () => {
    const quiet = await atriumVm(["run", "--image", "busybox", "--", "echo out; echo err >&2; exit 3"]);
    expect(quiet).toEqual({ stdout: "out\n", stderr: "err\n", exitCode: 3 });
  }, 180_000);

  it("creates, serves, execs, copies, stops, restarts, packs and removes a named machine", async () => {
    expect(await atriumVm(["create", "box", "--image", "busybox"])).toEqual({
      stdout: "created box\n",
      stderr: "",
      exitCode: 0,
    });
    expect((await atriumVm(["ls"])).stdout).toBe("NAME  STATUS   IMAGE\nbox   stopped  busybox\n");

    const first = await startServing("box");
    const pid = first.child.pid as number;
    expect(first.output()).toMatch(/^box is running \((tcg|kvm)\); stop it with: atrium-vm stop box\n$/);
    expect((await atriumVm(["ls"])).stdout).toBe(
      `NAME  STATUS${" ".repeat(`running (pid ${pid})`.length - 6)}  IMAGE\nbox   running (pid ${pid})  busybox\n`,
    );
    expect(await atriumVm(["exec", "box", "--", "echo kept > /root/kept.txt; cat /root/kept.txt"])).toEqual({
      stdout: "kept\n",
      stderr: "",
      exitCode: 0,
    });
    expect(await atriumVm(["exec", "box", "--", "sh", "-c", "exit 7"])).toEqual({
      stdout: "",
      stderr: "",
      exitCode: 7,
    });
    expect(await atriumVm(["exec", "--timeout", "300", "box", "--", "sleep", "5"])).toEqual({
      stdout: "",
      stderr: "",
      exitCode: 124,
    });
    await writeFile(join(work, "in.txt"), "from the host\n");
    expect(await atriumVm(["cp", join(work, "in.txt"), "box:/root/in.txt"])).toEqual({
      stdout: "",
      stderr: "",
      exitCode: 0,
    });
    expect(await atriumVm(["cp", "box:/root/in.txt", join(work, "back.txt")])).toEqual({
      stdout: "",
      stderr: "",
      exitCode: 0,
    });
    expect(await readFile(join(work, "back.txt"), "utf8")).toBe("from the host\n");

    // Saved while it runs, resumed elsewhere, cloned: each restore starts from the saved state.
    await atriumVm(["exec", "box", "--", "echo saved > /root/state.txt"]);
    const snapshot = join(work, "box.snapshot");
    const saved = await atriumVm(["snapshot", "box", snapshot]);
    expect(saved.stderr).toBe("");
    expect(saved.stdout).toMatch(
      new RegExp(
        `^saved box to ${snapshot} \\(\\d+\\.\\d MiB of state, \\d+\\.\\d MiB of disk; paused \\d+ ms\\)\\n$`,
      ),
    );
    await atriumVm(["exec", "box", "--", "echo later > /root/state.txt"]);
    expect(await atriumVm(["restore", snapshot, "--", "cat /root/state.txt; exit 4"])).toEqual({
      stdout: "saved\n",
      stderr: "",
      exitCode: 4,
    });
    const forked = await atriumVm([
      "fork",
      snapshot,
      "2",
      "--",
      "cat /root/state.txt; head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \\n'",
    ]);
    expect(forked).toMatchObject({ stderr: "", exitCode: 0 });
    const clones =
      /^== fork 1: exit 0 ==\nsaved\n([0-9a-f]{32})== fork 2: exit 0 ==\nsaved\n([0-9a-f]{32})$/.exec(
        forked.stdout,
      );
    expect(clones?.[1]).toBeDefined();
    expect(clones?.[1]).not.toBe(clones?.[2]);
    expect(await atriumVm(["fork", "box", "1", "--", "cat /root/state.txt"])).toEqual({
      stdout: "== fork 1: exit 0 ==\nlater\n",
      stderr: "",
      exitCode: 0,
    });
    expect(await atriumVm(["exec", "box", "--", "cat /root/state.txt"])).toMatchObject({ stdout: "later\n" });

    expect(await atriumVm(["rm", "box"])).toEqual({
      stdout: "",
      stderr: `atrium-vm rm: machine box is running (served by pid ${pid}); stop it first: atrium-vm stop box\n`,
      exitCode: 1,
    });
    expect(await atriumVm(["stop", "box"])).toEqual({ stdout: "stopped box\n", stderr: "", exitCode: 0 });
    expect(await first.done).toBe(0);
    expect(first.output()).toMatch(/\nbox stopped\n$/);

    // Another host process boots the same disk: what the first wrote is there.
    const second = await startServing("box");
    const qemu = qemuChildrenOf(second.child.pid as number);
    expect(qemu).toHaveLength(1);
    expect((await atriumVm(["exec", "box", "--", "cat /root/kept.txt /root/in.txt"])).stdout).toBe(
      "kept\nfrom the host\n",
    );
    // Killing the serving process takes its QEMU with it.
    second.child.kill("SIGKILL");
    await second.done;
    const end = Date.now() + 5000;
    while (isRunning(qemu[0] as number) && Date.now() < end) await sleep(50);
    expect(isRunning(qemu[0] as number)).toBe(false);
    expect((await atriumVm(["ls"])).stdout).toBe("NAME  STATUS   IMAGE\nbox   stopped  busybox\n");

    const pack = join(work, "box.atrium-vm");
    const packed = await atriumVm(["pack", "create", "box", "-o", pack]);
    expect(packed.stderr).toBe("");
    expect(packed.stdout).toMatch(
      new RegExp(`^packed box into ${pack} \\(\\d+\\.\\d MiB of sections\\)\\n$`),
    );
    const copy = join(work, "elsewhere.atrium-vm");
    await copyFile(pack, copy);
    expect(await atriumVm(["pack", "run", copy, "--", "cat /root/kept.txt /root/in.txt"])).toEqual({
      stdout: "kept\nfrom the host\n",
      stderr: "",
      exitCode: 0,
    });
    // A pack with the running machine's snapshot resumes it as it was saved (state.txt), unless --fresh.
    const resumable = join(work, "resumable.atrium-vm");
    expect(
      (await atriumVm(["pack", "create", "box", "-o", resumable, "--snapshot", snapshot])).exitCode,
    ).toBe(0);
    expect(await atriumVm(["pack", "run", resumable, "--", "cat /root/state.txt"])).toEqual({
      stdout: "saved\n",
      stderr: "",
      exitCode: 0,
    });
    expect(await atriumVm(["pack", "run", "--fresh", resumable, "--", "cat /root/state.txt"])).toEqual({
      stdout: "later\n",
      stderr: "",
      exitCode: 0,
    });
    // The runner decides a pack's network, and can only narrow it: this one's is off.
    expect(await atriumVm(["pack", "run", "--allow-hosts", "127.0.0.1:9", copy, "--", "true"])).toEqual({
      stdout: "",
      stderr:
        "atrium-vm pack run: the pack's network stays off unless asked for: add --network (network: true) to allow hosts or bind ports\n",
      exitCode: 1,
    });
    expect(await atriumVm(["pack", "run", "--network", copy, "--", "true"])).toEqual({
      stdout: "",
      stderr:
        "atrium-vm pack run: the pack's network is off (network.enabled = false in its config); a runner can narrow a pack's network, never turn it on\n",
      exitCode: 1,
    });

    // A guest that dies under `start` ends it with exit 1 and the console's last lines.
    const third = await startServing("box");
    let startStderr = "";
    third.child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (startStderr += chunk));
    const panicked = await atriumVm(["exec", "box", "--", "echo c > /proc/sysrq-trigger"]);
    expect(panicked.exitCode).toBe(1);
    expect(panicked.stderr).toMatch(/^atrium-vm exec: .*the guest kernel panicked/);
    expect(await third.done).toBe(1);
    expect(startStderr).toMatch(
      /^atrium-vm start: box stopped unexpectedly \(Kernel panic - not syncing: sysrq triggered crash\); its console ended with:\n/,
    );
    expect((await atriumVm(["ls"])).stdout).toBe("NAME  STATUS   IMAGE\nbox   stopped  busybox\n");

    expect(await atriumVm(["rm", "box"])).toEqual({ stdout: "removed box\n", stderr: "", exitCode: 0 });
    expect((await atriumVm(["ls"])).stdout).toBe("NAME  STATUS  IMAGE\n");
  }, 600_000);
});
