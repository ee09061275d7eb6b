import { existsSync, readdirSync } from "node:fs";
import { delimiter, join } from "node:path";

const onPath = (name: string) =>
  (process.env.PATH ?? "").split(delimiter).some((dir) => dir && existsSync(join(dir, name)));
const hasKernel = () => {
  try {
    return readdirSync("/boot").some((name) => name.startsWith("vmlinuz-"));
  } catch {
    return false;
  }
};

/** What real guests need on this host (`atrium-vm doctor` / `doctor()` says how to install each). */
const missing = [
  onPath("qemu-system-x86_64") || process.env.ATRIUM_QEMU ? undefined : "qemu-system-x86",
  hasKernel() ? undefined : "linux-image-amd64",
  onPath("musl-gcc") ? undefined : "musl-tools",
  existsSync("/bin/busybox") ? undefined : "busybox-static",
  onPath("mke2fs") || existsSync("/sbin/mke2fs") ? undefined : "e2fsprogs",
].filter((name): name is string => name !== undefined);

/**
 * Suites with real guests run when the host has what they need, and always under CI=true, where
 * a missing piece must fail loudly (the set-up installs them) instead of skipping.
 */
export const SKIP_VM_SUITES = missing.length > 0 && process.env.CI !== "true";
if (SKIP_VM_SUITES) {
  console.warn(
    `@atrium/microvm: real-guest suites skipped; missing: ${missing.join(", ")} (sudo apt-get install ${missing.join(" ")})`,
  );
}
