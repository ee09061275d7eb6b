/** The Debian packages that provide each host tool, for messages that say how to install it. */
export const APT_PACKAGE_OF = {
  qemu: "qemu-system-x86",
  kernel: "linux-image-amd64",
  xz: "xz-utils",
  musl: "musl-tools",
  mke2fs: "e2fsprogs",
  busybox: "busybox-static",
  qemuImg: "qemu-utils",
} as const;

export function aptCommand(...packages: string[]): string {
  return `sudo apt-get install -y ${packages.join(" ")}`;
}
