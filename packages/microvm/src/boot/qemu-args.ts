import { AGENT_PORT_NAME } from "../guest-agent/protocol.js";

export type Accelerator = "kvm" | "tcg";

export interface QemuLaunch {
  accelerator: Accelerator;
  kernelPath: string;
  initramfsPath: string;
  cpus: number;
  memoryMiB: number;
  /** Unix socket QEMU listens on for the agent's virtio-serial port. */
  agentSocketPath: string;
  /** Root disk image (raw ext4); absent for the bare boot. */
  diskPath?: string;
  /**
   * The root disk as open fds QEMU inherited (instead of `diskPath`): handed over with
   * `-add-fd`, which QEMU dups without opening a path, so an unprivileged QEMU uses a disk only
   * root could open, and only in the mode (read-only, read-write) the host opened it in.
   */
  diskFds?: readonly number[];
  /** Writes to the disk go to a throwaway overlay (an ephemeral machine). */
  diskSnapshot?: boolean;
  /**
   * Writes go to this qcow2 overlay in the run directory instead of QEMU's hidden one (so a
   * snapshot can copy it); `backing`: its unwritten clusters read from the disk (`diskFds`),
   * otherwise the overlay is a whole disk of its own (a snapshot of a named machine's disk).
   */
  diskOverlay?: { path: string; backing: boolean };
  /** QEMU's QMP socket (snapshots, restores). */
  qmpSocketPath?: string;
  /** Start waiting for a migration stream (`migrate-incoming`) instead of running the guest. */
  incoming?: boolean;
  /** Host directories shared over virtio-9p, each under its mount tag. */
  volumes?: readonly { tag: string; hostPath: string; readonly: boolean }[];
  /** Absent: no network device at all. */
  network?: {
    hostForwards: { hostPort: number; guestPort: number }[];
    /** An allow-list: `restrict=on` (nothing leaves) plus one relay rule per allowed host. */
    guestForwards?: { guestAddress: string; guestPort: number; command: string }[];
  };
  /**
   * QEMU's seccomp sandbox (`-sandbox on,...`): no obsolete syscalls, no setuid/setgid, no
   * scheduler or resource changes, and no fork/exec unless `allowSpawn` (an allow-list's relay
   * rules start one process per connection).
   */
  sandbox?: { allowSpawn: boolean };
  /** TSC frequency of the host, for TCG guests (see kernelCommandLine). */
  tscKhz?: number;
  extraKernelArgs?: readonly string[];
}

/**
 * The kernel command line. Under TCG the kernel cannot calibrate its clock against the PIT on a
 * busy host (it hangs after "Marking TSC unstable"), so the host's TSC rate is given
 * (`tsc_early_khz`; TCG's guest TSC reads the host's) and trusted. The rest trims boot work:
 * `quiet` (every console byte is an emulated UART write), no crypto self-tests, no mitigations
 * patching. `panic=-1` reboots at once on a panic, which `-no-reboot` turns into QEMU exiting,
 * so a panic is an exit the host sees, never a hang. `init_on_free=1`: the guest zeroes the pages
 * it frees, so a snapshot carries only live memory (QEMU sends a zero page as a marker): 16% less
 * state for a fresh busybox guest (57 against 68 MB), more for one whose programs have come and
 * gone, and a page one guest process freed is never read back by another.
 */
export function kernelCommandLine(launch: QemuLaunch): string {
  const args = [
    "console=ttyS0",
    "quiet",
    "panic=-1",
    "rdinit=/init",
    "8250.nr_uarts=1",
    "cryptomgr.notests",
    "mitigations=off",
    "random.trust_cpu=on",
    "no_timer_check",
    "audit=0",
    "init_on_free=1",
  ];
  if (launch.accelerator === "tcg") {
    args.push("tsc=reliable");
    if (launch.tscKhz) args.push(`tsc_early_khz=${launch.tscKhz}`);
  }
  return [...args, ...(launch.extraKernelArgs ?? [])].join(" ");
}

/**
 * Debian's QEMU 7.2 accepts each of these; `on` alone would still allow them. An allow-list's
 * relay rules make QEMU start `/bin/sh -c "node -e ..."` per connection, which needs fork/exec,
 * and node does not start under elevateprivileges=deny (nor =children): those two are allowed
 * then. QEMU is still unprivileged (no capabilities, no_new_privs), so a set*uid call has
 * nothing to gain; the filter there was a second layer.
 */
function sandboxArgs(sandbox: QemuLaunch["sandbox"]): string[] {
  if (!sandbox) return [];
  const children = sandbox.allowSpawn ? "allow" : "deny";
  return [
    "-sandbox",
    `on,obsolete=deny,elevateprivileges=${children},spawn=${children},resourcecontrol=deny`,
  ];
}

/**
 * The machine itself: `-M microvm` (virtio-mmio, no PCI, no firmware option ROMs), its
 * accelerator, CPUs and memory. Every QEMU here starts with these (machines, the accelerator
 * probe, the bench's bare boot), so what is compared is booted alike.
 *
 * Under TCG the guest's RAM is a memfd rather than QEMU's default anonymous memory, which QEMU
 * marks for transparent huge pages: each first touch of a 4 KiB guest page then makes the host
 * zero a 2 MiB one, about 150 MiB per boot. On a host that is itself a VM with free-page
 * reporting (cloud VMs, Firecracker) memory freed a moment ago has gone back to the hypervisor,
 * and zeroing it again cost up to 700 ms of host system time per boot, every other boot
 * (measured here: boots alternated between 1.5 and 2.2 s; with a memfd, 1.6 s each). Shared
 * memory follows `shmem_enabled`, which distributions leave at `never`. Under KVM huge pages
 * back the guest's own page tables and are worth their cost, so KVM keeps the default.
 */
export function machineArgs(accelerator: Accelerator, cpus: number, memoryMiB: number): string[] {
  const memfd = accelerator === "tcg";
  return [
    ...(memfd ? ["-object", `memory-backend-memfd,id=ram,size=${memoryMiB}M`] : []),
    "-M",
    `microvm,x-option-roms=off,rtc=on${memfd ? ",memory-backend=ram" : ""}`,
    "-accel",
    accelerator,
    "-cpu",
    accelerator === "kvm" ? "host" : "max",
    "-smp",
    String(cpus),
    "-m",
    `${memoryMiB}M`,
  ];
}

/**
 * The argv of a one-CPU machine with nothing but a serial console on stdio: the kernel and
 * initramfs as inherited fds 3 and 4, QEMU's seccomp sandbox with no spawning. The accelerator
 * probe and the bench's bare boot start QEMU this way.
 */
export function consoleOnlyArgs(accelerator: Accelerator, memoryMiB: number, append: string): string[] {
  return [
    ...machineArgs(accelerator, 1, memoryMiB),
    "-nodefaults",
    "-no-user-config",
    "-nographic",
    "-no-reboot",
    "-sandbox",
    "on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny",
    "-kernel",
    "/dev/fd/3",
    "-initrd",
    "/dev/fd/4",
    "-append",
    append,
    "-chardev",
    "stdio,id=console,signal=off",
    "-serial",
    "chardev:console",
  ];
}

/**
 * The root disk as a qcow2 overlay node over the image's raw disk (fd set 1), as separate
 * blockdev nodes so the backing is named here rather than read from the overlay's header.
 * `cache.no-flush`: the guest's flushes are not worth a host fsync for a disk that is thrown
 * away with the machine (what `cache=unsafe` did for the drive).
 */
function overlayDiskArgs(overlay: { path: string; backing: boolean }, diskFds?: readonly number[]): string[] {
  const args: string[] = [];
  let backing = "";
  if (overlay.backing) {
    for (const fd of diskFds ?? []) args.push("-add-fd", `fd=${fd},set=1`);
    args.push(
      "-blockdev",
      "driver=raw,node-name=base,read-only=on,file.driver=file,file.filename=/dev/fdset/1,file.read-only=on",
    );
    backing = ",backing=base";
  }
  args.push(
    "-blockdev",
    `driver=qcow2,node-name=root,discard=unmap,cache.no-flush=on,file.driver=file,file.filename=${overlay.path}${backing}`,
    "-device",
    "virtio-blk-device,drive=root",
  );
  return args;
}

/**
 * QEMU's argv: `-M microvm` (virtio-mmio, no PCI, no firmware option ROMs), nothing QEMU would
 * add by default, the console on stdio, the agent's port on a Unix socket, the root disk, and a
 * network device only when the network is on.
 */
export function qemuArgs(launch: QemuLaunch): string[] {
  const args = [
    ...machineArgs(launch.accelerator, launch.cpus, launch.memoryMiB),
    "-nodefaults",
    "-no-user-config",
    "-nographic",
    "-no-reboot",
    ...sandboxArgs(launch.sandbox),
    "-kernel",
    launch.kernelPath,
    "-initrd",
    launch.initramfsPath,
    "-append",
    kernelCommandLine(launch),
    "-chardev",
    "stdio,id=console,signal=off",
    "-serial",
    "chardev:console",
    "-device",
    "virtio-serial-device",
    "-chardev",
    `socket,id=agent,path=${launch.agentSocketPath},server=on,wait=off`,
    "-device",
    `virtserialport,chardev=agent,name=${AGENT_PORT_NAME}`,
  ];
  if (launch.qmpSocketPath) args.push("-qmp", `unix:${launch.qmpSocketPath},server=on,wait=off`);
  if (launch.incoming) args.push("-incoming", "defer");
  if (launch.diskOverlay) args.push(...overlayDiskArgs(launch.diskOverlay, launch.diskFds));
  else if (launch.diskPath || launch.diskFds) {
    const snapshot = launch.diskSnapshot ? ",snapshot=on" : "";
    let file = launch.diskPath;
    if (launch.diskFds) {
      for (const fd of launch.diskFds) args.push("-add-fd", `fd=${fd},set=1`);
      file = "/dev/fdset/1";
    }
    // file.locking=off: QEMU holds this disk through two fds of one fd set (read-only and
    // read-write), and re-taking its image lock after a migration (a snapshot's `cont`) makes the
    // two conflict with each other. Only this machine uses the disk (a named machine is served
    // by one process at a time, an image's cached disk is opened read-only by every machine).
    args.push(
      "-drive",
      `id=root,file=${file},format=raw,if=none,cache=unsafe,discard=unmap,file.locking=off${snapshot}`,
      "-device",
      "virtio-blk-device,drive=root",
    );
  }
  for (const [index, volume] of (launch.volumes ?? []).entries()) {
    // security_model=mapped-xattr: the guest's ownership, modes, device nodes and symlinks are
    // kept in user.virtfs.* xattrs, never made real on the host, so a guest `chmod 4755` or
    // `chown` changes no host attribute and a guest symlink is a regular file on the host.
    // Files the guest creates are plain files of QEMU's user, mode 0600 (directories 0700).
    // readonly=on makes QEMU refuse writes itself, whatever the guest's root does to its mount.
    const readonly = volume.readonly ? ",readonly=on" : "";
    args.push(
      "-fsdev",
      `local,id=fs${index},path=${volume.hostPath},security_model=mapped-xattr${readonly}`,
      "-device",
      `virtio-9p-device,fsdev=fs${index},mount_tag=${volume.tag}`,
    );
  }
  if (launch.network) {
    const forwards = launch.network.hostForwards
      .map((forward) => `,hostfwd=tcp:127.0.0.1:${forward.hostPort}-:${forward.guestPort}`)
      .join("");
    const guestForwards = launch.network.guestForwards;
    // QEMU's option parser reads ",," as a literal comma inside a value.
    const allowList = guestForwards
      ? `,restrict=on${guestForwards.map((f) => `,guestfwd=tcp:${f.guestAddress}:${f.guestPort}-cmd:${f.command.replaceAll(",", ",,")}`).join("")}`
      : "";
    args.push("-netdev", `user,id=net0${forwards}${allowList}`, "-device", "virtio-net-device,netdev=net0");
  }
  return args;
}
