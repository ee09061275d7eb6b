/**
 * The figures issue 15 names, measured in one run on this host, each beside the bare boot it is
 * judged against: a busybox initramfs whose init prints one line and powers off, booted with the
 * same kernel, machine type and kernel command line as the machines themselves.
 *
 * Restore and fork are judged against the cold boot of the same image and memory size (busybox,
 * the default memory), sampled in the same loop: the snapshot is of a machine booted like the
 * cold ones, after its first command.
 *
 * ATRIUM_BENCH_RUNS sets the samples per figure (default 5; medians are reported).
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchRow, compared, median, writeBenchResults } from "@atrium/bench";
import { consoleOnlyArgs, kernelCommandLine } from "../src/boot/qemu-args.js";
import { buildOnce, defaultCacheDir, sha256Hex } from "../src/cache-dir.js";
import { prepareKernel } from "../src/engine/kernel.js";
import { findQemu } from "../src/engine/qemu.js";
import { buildGuestAgent } from "../src/guest-agent/build-agent.js";
import { writeCpio } from "../src/image/cpio.js";
import { Machine } from "../src/index.js";
import { resolveMicrovmLimits } from "../src/limits.js";
import { chooseAccelerator, hostTscKhz } from "../src/machine/accelerator.js";
import { openBootFiles } from "../src/machine/boot-files.js";
import { spawnQemu } from "../src/machine/qemu-process.js";
import { qemuUser } from "../src/machine/qemu-user.js";
import { WarmPool } from "../src/pool/warm-pool.js";

const runs = Number(process.env.ATRIUM_BENCH_RUNS ?? 5);
const cacheDir = defaultCacheDir();
const qemu = await findQemu(cacheDir);
const kernel = await prepareKernel(cacheDir);
const agentPath = await buildGuestAgent(cacheDir);
const { accelerator } = await chooseAccelerator({
  qemu,
  kernel,
  agentPath,
  cacheDir,
  probeTimeoutMs: resolveMicrovmLimits().kvmProbeTimeoutMs,
});

/** Spawn to exit of QEMU booting busybox: the kernel's own cost, the floor of any machine. */
async function bareBusyboxBootMs(): Promise<number> {
  const busybox = await readFile("/bin/busybox");
  const init = "#!/bin/busybox sh\n/bin/busybox echo bare-boot-ok\n/bin/busybox poweroff -f\n";
  const initramfs = await buildOnce(
    join(cacheDir, "bench", `bare-${sha256Hex(busybox).slice(0, 24)}.cpio`),
    (tmp) =>
      writeFile(
        tmp,
        writeCpio([
          { kind: "dir", path: "dev" },
          { kind: "char-device", path: "dev/console", major: 5, minor: 1 },
          { kind: "dir", path: "bin" },
          { kind: "file", path: "bin/busybox", data: busybox, mode: 0o755 },
          { kind: "file", path: "init", data: new TextEncoder().encode(init), mode: 0o755 },
        ]),
      ),
  );
  const tscKhz = accelerator === "tcg" ? await hostTscKhz() : undefined;
  const append = kernelCommandLine({
    accelerator,
    kernelPath: kernel.vmlinuxPath,
    initramfsPath: initramfs,
    cpus: 1,
    memoryMiB: 256,
    agentSocketPath: "",
    tscKhz,
  });
  const args = consoleOnlyArgs(accelerator, 256, append);
  // Started the way every machine's QEMU is (unprivileged, namespaces, seccomp), so the baseline
  // pays what a machine pays.
  const user = qemuUser();
  const started = performance.now();
  const files = await openBootFiles({ kernel: kernel.vmlinuxPath, initramfs, diskWritable: false, user });
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawnQemu(qemu.path, args, { fds: files.fds, user, noNetwork: true }).process;
    void files.close();
    let text = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", () => resolve(text));
  });
  if (!output.includes("bare-boot-ok"))
    throw new Error(`the bare boot did not print its line:\n${output.slice(-2000)}`);
  return performance.now() - started;
}

const bare: number[] = [];
const cold: number[] = [];
const roundTrips: number[] = [];
const copyIn: number[] = [];
const restores: number[] = [];
const forks: number[] = [];
/** Clones per fork sample (fork_to_exec_ms: fork, then one command in every clone). */
const FORK_CLONES = 4;
const snapshotDir = await mkdtemp(join(tmpdir(), "atrium-vm-bench-"));
const snapshotFile = join(snapshotDir, "busybox.snapshot");
let snapshotBytes = 0;
const payload = new Uint8Array(32 * 1024 * 1024).fill(7);
for (let run = 0; run < runs; run++) {
  // Interleaved so load drift on the host hits both figures alike.
  bare.push(await bareBusyboxBootMs());
  const started = performance.now();
  const machine = await Machine.create({ image: "busybox" });
  await machine.exec(["true"]);
  cold.push(performance.now() - started);
  // Snapshot and fork before the copy-in, whose 32 MiB payload would sit in the guest's memory.
  if (run === 0) {
    const info = await machine.snapshot(snapshotFile);
    snapshotBytes = info.stateBytes + info.diskBytes;
  }
  const forkStarted = performance.now();
  const clones = await machine.fork(FORK_CLONES);
  await Promise.all(clones.map((clone) => clone.exec(["true"])));
  forks.push(performance.now() - forkStarted);
  await Promise.all(clones.map((clone) => clone.stop()));
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    await machine.exec(["true"]);
    roundTrips.push(performance.now() - t);
  }
  const t = performance.now();
  await machine.writeFile("/tmp/payload", payload);
  copyIn.push(payload.byteLength / 1024 / 1024 / ((performance.now() - t) / 1000));
  await machine.stop();
  const restoreStarted = performance.now();
  const restored = await Machine.restore(snapshotFile);
  await restored.exec(["true"]);
  restores.push(performance.now() - restoreStarted);
  await restored.stop();
}
await rm(snapshotDir, { recursive: true, force: true });

// Warm start: a pool keeps one booted machine; each sample takes it, runs one command, and
// waits for the background refill before the next, so every sample finds a machine idle.
const warm: number[] = [];
{
  const pool = await WarmPool.create({ image: "busybox" }, { size: 1 });
  await pool.whenFull();
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const machine = await pool.acquire();
    await machine.exec(["true"]);
    warm.push(performance.now() - started);
    await machine.stop();
    await pool.whenFull();
  }
  await pool.close();
}

const bareMs = median(bare);
const coldMs = median(cold);
const rows: BenchRow[] = [
  { metric: "bare_busybox_boot_ms", value: bareMs, unit: `ms (${accelerator})` },
  compared("cold_boot_to_exec_ms", coldMs, `ms (${accelerator})`, "bare_busybox_boot_ms", bareMs),
  compared(
    "restore_to_exec_ms",
    median(restores),
    `ms (${accelerator}, ${(snapshotBytes / 1024 / 1024).toFixed(0)} MiB snapshot)`,
    "cold_boot_to_exec_ms",
    coldMs,
  ),
  compared(
    "fork_to_exec_ms",
    median(forks),
    `ms (${accelerator}, ${FORK_CLONES} clones, each ran one command)`,
    "cold_boot_to_exec_ms",
    coldMs,
  ),
  { metric: "warm_start_to_exec_ms", value: median(warm), unit: `ms (${accelerator}, warm pool)` },
  { metric: "exec_roundtrip_ms", value: median(roundTrips), unit: `ms (${accelerator})` },
  { metric: "copy_in_mb_per_s", value: median(copyIn), unit: `MB/s (${accelerator})` },
];
writeBenchResults("microvm", rows);
