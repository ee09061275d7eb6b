// What the OS sandbox around the Python interpreter allows, shown with plain JavaScript: Pyodide
// itself has no sockets or processes, so a Python-side attempt would prove nothing. The program
// below runs under exactly the Python sandbox's launch (pythonSandboxProgram: the same mounts,
// worker permission, limits, seccomp filter, uid), once with Node's permission model (as Python
// runs) and once without it, to show what the operating system holds on its own. After each,
// the host is checked: alive, no connection reached it, no file written.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchOsSandbox } from "@atrium/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pythonSandboxProgram } from "../src/sandbox/python-process-client.js";

const ATTACKS = String.raw`
import { fstatSync, openSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { connect } from "node:net";
import { Worker } from "node:worker_threads";
const [port, hostPid] = process.argv.slice(2).map(Number);
const out = {};
const attempt = (name, fn) => {
  try { out[name] = { ok: fn() }; } catch (error) { out[name] = { error: error.code ?? error.message }; }
};
attempt("env", () => ({ ...process.env }));
attempt("passwd", () => readFileSync("/etc/passwd", "utf8").length);
attempt("hostEnviron", () => readFileSync("/proc/" + hostPid + "/environ", "utf8").length);
attempt("killHost", () => process.kill(hostPid, 0));
attempt("pids", () => readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number).sort((a, b) => a - b));
attempt("status", () => readFileSync("/proc/self/status", "utf8").split("\n").filter((line) => /^(Uid|CapEff|NoNewPrivs|Seccomp):/.test(line)).map((line) => line.replace(/\s+/g, " ")));
attempt("spawnShell", () => { const r = spawnSync("/bin/sh", ["-c", "id"]); if (r.error) throw r.error; return r.status; });
attempt("spawnNode", () => { const r = spawnSync(process.execPath, ["-e", "1"]); if (r.error) throw r.error; return r.status; });
attempt("write", () => writeFileSync("/atrium/app/planted.txt", "x"));
attempt("writeTmp", () => writeFileSync("/tmp/planted.txt", "x"));
attempt("writeRoot", () => writeFileSync("/planted.txt", "x"));
attempt("ptmx", () => openSync("/dev/ptmx", "r+"));
for (const fd of [200, 201]) attempt("inheritedFd" + fd, () => fstatSync(fd).size);
out.tcp = await new Promise((resolve) => {
  try {
    const socket = connect(port, "127.0.0.1");
    socket.on("connect", () => { socket.destroy(); resolve({ ok: "connected" }); });
    socket.on("error", (error) => resolve({ error: error.code }));
  } catch (error) { resolve({ error: error.code ?? error.message }); }
});
// A worker started with execArgv: [] runs without Node's permission model on Node 20.
out.workerWithoutPermissions = await new Promise((resolve) => {
  try {
    const worker = new Worker("const { spawnSync } = require('node:child_process'); const r = spawnSync(process.execPath, ['-e', '1']); require('node:worker_threads').parentPort.postMessage(r.error ? r.error.code : r.status);", { eval: true, execArgv: [] });
    worker.on("message", (value) => resolve({ ok: value }));
    worker.on("error", (error) => resolve({ error: error.code ?? error.message }));
  } catch (error) { resolve({ error: error.code ?? error.message }); }
});
out.workerSpawn = await new Promise((resolve) => {

  try {
    const worker = new Worker("const { spawnSync } = require('node:child_process'); const r = spawnSync('/bin/sh', ['-c', 'id']); require('node:worker_threads').parentPort.postMessage(r.error ? r.error.code : r.status);", { eval: true });
    worker.on("message", (value) => resolve({ ok: value }));
    worker.on("error", (error) => resolve({ error: error.code ?? error.message }));
  } catch (error) { resolve({ error: error.code ?? error.message }); }
});
process.stdout.write(JSON.stringify(out));
`;

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
let dir: string;
let server: Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "atrium-boundary-"));
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, "attacks.mjs"), ATTACKS, { mode: 0o644 });
  server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

async function runAttacks(
  permissionModel: boolean,
): Promise<Record<string, { ok?: unknown; error?: string }>> {
  const program = {
    ...pythonSandboxProgram(dir, "attacks.mjs"),
    args: [String(port), String(process.pid)],
    permissionModel,
  };
  const { child, stderrTail } = launchOsSandbox(program);
  let stdout = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (text: string) => {
    stdout += text;
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`the sandboxed program exited ${String(code)}: ${stderrTail()}`);
  return JSON.parse(stdout);
}

function expectHostUnharmed(): void {
  expect(connections).toBe(0);
  expect(existsSync(join(dir, "planted.txt"))).toBe(false);
  expect(readdirSync(dir)).toEqual(["attacks.mjs"]);
  expect(spawnSync("true").status).toBe(0);
}

const isRoot = process.getuid?.() === 0;

describe("the Python sandbox's OS boundary, as the Python sandbox runs (with Node's permission model)", () => {
  it("gives plain JavaScript no network, no host files, no environment, no host processes, no way to spawn", async () => {
    const out = await runAttacks(true);
    // Only the working directory bubblewrap always names: nothing of the host's environment.
    expect(out.env).toEqual({ ok: { PWD: "/atrium" } });
    expect(out.passwd).toEqual({ error: "ERR_ACCESS_DENIED" });
    expect(out.hostEnviron).toEqual({ error: "ERR_ACCESS_DENIED" });
    expect(out.killHost).toEqual({ error: "ESRCH" });
    expect(out.pids).toEqual({ error: "ERR_ACCESS_DENIED" });
    expect(out.spawnShell).toEqual({ error: "ERR_ACCESS_DENIED" });
    expect(out.spawnNode).toEqual({ error: "ERR_ACCESS_DENIED" });
    expect(out.workerSpawn).toEqual({ error: "ERR_ACCESS_DENIED" });
    expect(out.write).toEqual({ error: "ERR_ACCESS_DENIED" });
    expect(out.writeTmp).toEqual({ error: "ERR_ACCESS_DENIED" });
    expect(out.writeRoot).toEqual({ error: "ERR_ACCESS_DENIED" });
    expect(out.tcp).toEqual({ error: "EAFNOSUPPORT" });
    expect(out.ptmx).toEqual({ error: "ERR_ACCESS_DENIED" });
    // Node 20 starts a worker given execArgv: [] without the permission model (the worker's
    // spawn then gets past it), and the seccomp filter still refuses the new process.
    expect(out.workerWithoutPermissions).toEqual({ ok: "EPERM" });
    expectHostUnharmed();
  }, 30_000);
});

describe("the same boundary without Node's permission model: what the operating system holds alone", () => {
  it("still gives no network, no host files, no host processes and no privileges", async () => {
    const out = await runAttacks(false);
    // Only the working directory bubblewrap always names: nothing of the host's environment.
    expect(out.env).toEqual({ ok: { PWD: "/atrium" } });
    // Not mounted: the sandbox's root holds only the runtime, the program and Pyodide.
    expect(out.passwd).toEqual({ error: "ENOENT" });
    expect(out.hostEnviron).toEqual({ error: "ENOENT" });
    expect(out.killHost).toEqual({ error: "ESRCH" });
    // Its own PID namespace: bubblewrap's init and the program.
    expect(out.pids).toEqual({ ok: [1, 2] });
    const [uidLine, ...rest] = (out.status?.ok ?? []) as string[];
    expect(rest).toEqual(["CapEff: 0000000000000000", "NoNewPrivs: 1", "Seccomp: 2"]);
    const uid = Number(/^Uid: (\d+) \1 \1 \1$/.exec(uidLine ?? "")?.[1]);
    // As root, the host hands the sandbox an unprivileged uid of its own; otherwise its own.
    if (isRoot) expect(uid >= 200_000 && uid < 1_000_000).toBe(true);
    else expect(uid).toBe(process.getuid?.());
    // The seccomp filter allows threads, never a new process: the sandbox is one process, so
    // its memory and CPU limits bound all of it.
    expect(out.spawnShell).toEqual({ error: "EPERM" });
    expect(out.spawnNode).toEqual({ error: "EPERM" });

    expect(out.write).toEqual({ error: "EROFS" });
    // No /tmp, and the sandbox's root filesystem is read-only: nothing to fill memory with.
    expect(out.writeTmp).toEqual({ error: "ENOENT" });
    expect(out.writeRoot).toEqual({ error: "EROFS" });
    // The seccomp filter refuses every socket family but Unix sockets.
    expect(out.tcp).toEqual({ error: "EAFNOSUPPORT" });
    // Only the devices a runtime needs: no pseudo-terminal multiplexer.
    expect(out.ptmx).toEqual({ error: "ENOENT" });
    expectHostUnharmed();
  }, 30_000);

  it("passes none of the host's inherited file descriptors into the sandbox", () => {
    // A host started with descriptors it did not mark close-on-exec (a shell's `exec 200<file`):
    // a secret it may read and a file it may append to. The sandbox must get neither.
    const secret = join(dir, "secret.txt");
    const target = join(dir, "target.txt");
    writeFileSync(secret, "host secret", { mode: 0o600 });
    writeFileSync(target, "host file\n");
    const runner = join(dir, "runner.mts");
    writeFileSync(
      runner,
      [
        `import { launchOsSandbox } from ${JSON.stringify(join(packageDir, "..", "kit", "src", "index.ts"))};`,
        `import { pythonSandboxProgram } from ${JSON.stringify(join(packageDir, "src", "sandbox", "python-process-client.ts"))};`,
        `const program = { ...pythonSandboxProgram(${JSON.stringify(dir)}, "attacks.mjs"), args: ["1", "1"], permissionModel: false };`,
        "const { child } = launchOsSandbox(program);",
        "child.stdout.pipe(process.stdout);",
      ].join("\n"),
    );
    const script = `exec 200<"${secret}" 201>>"${target}"; exec "${process.execPath}" --import tsx --conditions=@atrium/source "${runner}"`;
    const result = spawnSync("bash", ["--norc", "--noprofile", "-c", script], {
      cwd: packageDir,
      encoding: "utf8",
    });
    const out = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(out.inheritedFd200).toEqual({ error: "EBADF" });
    expect(out.inheritedFd201).toEqual({ error: "EBADF" });
    expect(readFileSync(target, "utf8")).toBe("host file\n");
    rmSync(secret);
    rmSync(target);
    rmSync(runner);
    expectHostUnharmed();
  }, 60_000);
});
