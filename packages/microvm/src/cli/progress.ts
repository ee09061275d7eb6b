import type { CliIo } from "@atrium/kit/cli";

const STAGES: Record<string, string> = {
  engine: "finding QEMU",
  kernel: "preparing the kernel",
  agent: "building the guest agent",
  image: "building the image",
  disk: "copying the machine's disk",
  boot: "booting",
  pack: "writing the pack",
  verify: "verifying the pack",
};

/**
 * Progress on stderr while images build and machines boot ("atrium-vm: booting"), so stdout
 * carries only what the guest printed. `ATRIUM_VM_QUIET=1` silences it.
 */
export function progressTo(io: CliIo): (stage: string) => void {
  if (io.env.ATRIUM_VM_QUIET === "1") return () => {};
  return (stage) => io.stderr.write(`atrium-vm: ${STAGES[stage] ?? stage}\n`);
}
