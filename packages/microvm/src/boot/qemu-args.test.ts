import { describe, expect, it } from "vitest";
import { type QemuLaunch, qemuArgs } from "./qemu-args.js";

const base: QemuLaunch = {
  accelerator: "tcg",
  kernelPath: "/k/vmlinux",
  initramfsPath: "/k/init.cpio",
  cpus: 2,
  memoryMiB: 256,
  agentSocketPath: "/run/agent.sock",
  diskPath: "/images/root.ext4",
  diskSnapshot: true,
  tscKhz: 2_300_000,
};

describe("qemuArgs", () => {
  it("gives a machine with a disk overlay a qcow2 node over the image's fd set, QMP, and a deferred incoming migration", () => {
    const args = qemuArgs({
      ...base,
      diskPath: undefined,
      diskSnapshot: false,
      diskFds: [5],
      diskOverlay: { path: "/run/disk-overlay.qcow2", backing: true },
      qmpSocketPath: "/run/qmp.sock",
      incoming: true,
    }).join(" ");
    expect(args).toContain("-qmp unix:/run/qmp.sock,server=on,wait=off -incoming defer ");
    expect(args).toContain(
      "-add-fd fd=5,set=1 -blockdev driver=raw,node-name=base,read-only=on,file.driver=file,file.filename=/dev/fdset/1,file.read-only=on -blockdev driver=qcow2,node-name=root,discard=unmap,cache.no-flush=on,file.driver=file,file.filename=/run/disk-overlay.qcow2,backing=base -device virtio-blk-device,drive=root",
    );
    expect(args).not.toContain("-drive");
  });

  it("gives a snapshot's whole-disk overlay no backing and no disk fds", () => {
    const args = qemuArgs({
      ...base,
      diskPath: undefined,
      diskOverlay: { path: "/run/disk-overlay.qcow2", backing: false },
    }).join(" ");
    expect(args).toContain(
      "-blockdev driver=qcow2,node-name=root,discard=unmap,cache.no-flush=on,file.driver=file,file.filename=/run/disk-overlay.qcow2 -device virtio-blk-device,drive=root",
    );
    expect(args).not.toMatch(/add-fd|node-name=base|-incoming/);
  });

  it("boots microvm with nothing QEMU adds by default and no network device when the network is off", () => {
    const args = qemuArgs(base);
    expect(args.slice(0, 20)).toEqual([
      "-object",
      "memory-backend-memfd,id=ram,size=256M",
      "-M",
      "microvm,x-option-roms=off,rtc=on,memory-backend=ram",
      "-accel",
      "tcg",
      "-cpu",
      "max",
      "-smp",
      "2",
      "-m",
      "256M",
      "-nodefaults",
      "-no-user-config",
      "-nographic",
      "-no-reboot",
      "-kernel",
      "/k/vmlinux",
      "-initrd",
      "/k/init.cpio",
    ]);
    expect(args.join(" ")).not.toMatch(/netdev|virtio-net|-nic/);
    expect(args).toContain("socket,id=agent,path=/run/agent.sock,server=on,wait=off");
    expect(args).toContain(
      "id=root,file=/images/root.ext4,format=raw,if=none,cache=unsafe,discard=unmap,file.locking=off,snapshot=on",
    );
    const append = args[args.indexOf("-append") + 1];
    expect(append).toContain("panic=-1");
    expect(append).toContain("tsc_early_khz=2300000");
  });

  it("keeps QEMU's default guest RAM (transparent huge pages) under KVM; a memfd only under TCG", () => {
    expect(qemuArgs({ ...base, accelerator: "kvm" }).slice(0, 4)).toEqual([
      "-M",
      "microvm,x-option-roms=off,rtc=on",
      "-accel",
      "kvm",
    ]);
  });

  it("adds a user-mode NIC with loopback-only forwards when the network is on", () => {
    const args = qemuArgs({
      ...base,
      accelerator: "kvm",
      network: { hostForwards: [{ hostPort: 8080, guestPort: 80 }] },
    });
    expect(args.slice(-4)).toEqual([
      "-netdev",
      "user,id=net0,hostfwd=tcp:127.0.0.1:8080-:80",
      "-device",
      "virtio-net-device,netdev=net0",
    ]);
    expect(args[args.indexOf("-cpu") + 1]).toBe("host");
    expect(args[args.indexOf("-append") + 1]).not.toContain("tsc_early_khz");
  });

  it("restricts the user network to relay rules when there is an allow-list", () => {
    const args = qemuArgs({
      ...base,
      network: {
        hostForwards: [],
        guestForwards: [{ guestAddress: "10.0.2.100", guestPort: 9000, command: "'node' 'relay,1.cjs'" }],
      },
    });
    expect(args[args.indexOf("-netdev") + 1]).toBe(
      "user,id=net0,restrict=on,guestfwd=tcp:10.0.2.100:9000-cmd:'node' 'relay,,1.cjs'",
    );
  });
});

describe("qemuArgs at the host boundary", () => {
  it("sandboxes QEMU, hands it the disk as fds and maps volume metadata instead of applying it", () => {
    const args = qemuArgs({
      ...base,
      diskPath: undefined,
      diskFds: [5, 6],
      diskSnapshot: false,
      sandbox: { allowSpawn: false },
      volumes: [{ tag: "vol0", hostPath: "/data", readonly: false }],
    });
    expect(args.slice(args.indexOf("-sandbox"), args.indexOf("-sandbox") + 2)).toEqual([
      "-sandbox",
      "on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny",
    ]);
    expect(args.join(" ")).toContain(
      "-add-fd fd=5,set=1 -add-fd fd=6,set=1 -drive id=root,file=/dev/fdset/1,format=raw,if=none,cache=unsafe,discard=unmap,file.locking=off -device",
    );
    expect(args).toContain("local,id=fs0,path=/data,security_model=mapped-xattr");
    expect(args.join(" ")).not.toMatch(/security_model=(none|passthrough)/);
  });

  it("lets an allow-list's relays start (spawn, and set*id for node), nothing else", () => {
    const args = qemuArgs({ ...base, sandbox: { allowSpawn: true } });
    expect(args[args.indexOf("-sandbox") + 1]).toBe(
      "on,obsolete=deny,elevateprivileges=allow,spawn=allow,resourcecontrol=deny",
    );
  });
});
