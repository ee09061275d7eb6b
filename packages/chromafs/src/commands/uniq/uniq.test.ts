import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CommandTestSession, openCommandTestSession } from "../../../test/fixtures/command-session.js";

// Every expected output here is GNU coreutils 9.1's (LC_ALL=C.UTF-8, TZ unset) on the same files.
let shell: CommandTestSession;
beforeAll(async () => {
  shell = await openCommandTestSession();
});
afterAll(() => shell?.close());
const out = async (command: string) => (await shell.run(command)).stdout;

describe("uniq", () => {
  it("counts in a width of 7, case-folded with -i", async () => {
    expect(await out("uniq -c r.md")).toBe("      2 x\n      1 X\n      1 y\n");
    expect(await out("uniq -ci r.md")).toBe("      3 x\n      1 y\n");
  });
  it("keeps only repeated (-d) or unique (-u) lines", async () => {
    expect(await out("uniq -d r.md")).toBe("x\n");
    expect(await out("uniq -u r.md")).toBe("X\ny\n");
  });
});
