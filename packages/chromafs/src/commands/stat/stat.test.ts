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

describe("stat", () => {
  it("stat -c expands the directives", async () => {
    expect(await out("stat -c '%n %s %Y %F %h' d/kv.md d")).toBe(
      "d/kv.md 15 1790000000 regular file 1\nd 4096 1790000000 directory 3\n",
    );
    expect(await out("stat -c '%y' n.md")).toBe("2026-09-21 14:13:20.000000000 +0000\n");
  });
  it("shows pages as owned by the user running it", async () => {
    const id = (flag: string) => execFileSync("id", [flag], { encoding: "utf8" }).trim();
    expect(await out("stat -c '%U %G %u %g' n.md")).toBe(
      `${id("-un")} ${id("-gn")} ${id("-u")} ${id("-g")}\n`,
    );
  });
});
