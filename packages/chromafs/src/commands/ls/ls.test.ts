import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CommandTestSession, openCommandTestSession } from "../../../test/fixtures/command-session.js";

// Every expected output here is GNU coreutils 9.1's (LC_ALL=C.UTF-8, TZ unset) on the same files.
let shell: CommandTestSession;
beforeAll(async () => {
  shell = await openCommandTestSession();
});
afterAll(() => shell?.close());
const out = async (command: string) => (await shell.run(command)).stdout;

// The owner and group GNU shows for files the running user made (`id`, from coreutils).
const user = execFileSync("id", ["-un"], { encoding: "utf8" }).trim();
const group = execFileSync("id", ["-gn"], { encoding: "utf8" }).trim();

describe("ls", () => {
  it("lists file operands first, then directories under headings", async () => {
    expect(await out("ls d n.md")).toBe("n.md\n\nd:\nkv.md\nsub\n");
    expect(await out("ls -R d")).toBe("d:\nkv.md\nsub\n\nd/sub:\nh.md\n");
  });
  it("prints GNU's long format with total, links and -h sizes", async () => {
    expect(await out("ls -l d")).toBe(
      `total 8\n-rw-r--r-- 1 ${user} ${group}   15 Sep 21 14:13 kv.md\ndrwxr-xr-x 2 ${user} ${group} 4096 Sep 21 14:13 sub\n`,
    );
    expect(await out("ls -lh d")).toBe(
      `total 8.0K\n-rw-r--r-- 1 ${user} ${group}   15 Sep 21 14:13 kv.md\ndrwxr-xr-x 2 ${user} ${group} 4.0K Sep 21 14:13 sub\n`,
    );
  });
});
