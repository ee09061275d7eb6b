import { describe, expect, it } from "vitest";
import { qemuUser } from "./qemu-user.js";

/** qemuUser is undefined for any other user: it cannot change user, and QEMU runs as itself. */
const ROOT_ONLY = "qemuUser picks a user only on a root host; run the suite as root (as CI does) to check it";

describe("qemuUser on a root host", () => {
  it("drops QEMU to 65534 by default, or to the uid and gid asked for", (context) => {
    if (process.getuid?.() !== 0) return context.skip(ROOT_ONLY);
    expect(qemuUser({})).toMatchObject({ uid: 65534, gid: 65534 });
    expect(qemuUser({ ATRIUM_VM_QEMU_UID: "4242" })).toMatchObject({ uid: 4242, gid: 4242 });
    expect(qemuUser({ ATRIUM_VM_QEMU_UID: "4242", ATRIUM_VM_QEMU_GID: "77" })).toMatchObject({
      uid: 4242,
      gid: 77,
    });
  });

  it("never to root", (context) => {
    if (process.getuid?.() !== 0) return context.skip(ROOT_ONLY);
    expect(() => qemuUser({ ATRIUM_VM_QEMU_UID: "0" })).toThrow(
      "ATRIUM_VM_QEMU_UID=0: QEMU must run as an unprivileged user; give a numeric id other than 0 (default 65534, nobody)",
    );
    expect(() => qemuUser({ ATRIUM_VM_QEMU_GID: "root" })).toThrow(
      "ATRIUM_VM_QEMU_GID=root: QEMU must run as an unprivileged user; give a numeric id other than 0 (default 65534, nobody)",
    );
  });
});
