import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CommandTestSession, openCommandTestSession } from "../../../test/fixtures/command-session.js";

// Every expected output here is GNU coreutils 9.1's (LC_ALL=C.UTF-8, TZ unset) on the same files.
let shell: CommandTestSession;
beforeAll(async () => {
  shell = await openCommandTestSession();
});
afterAll(() => shell?.close());
const out = async (command: string) => (await shell.run(command)).stdout;

describe("head and tail", () => {
  it("print ==> headers for several files and keep a missing last newline", async () => {
    expect(await out("head -n 1 n.md r.md")).toBe("==> n.md <==\nb 2\n\n==> r.md <==\nx\n");
    expect(await out("tail -n 1 noeol.md n.md")).toBe("==> noeol.md <==\nthree\n==> n.md <==\nb 2\n");
  });
  it("take from the Nth line with tail -n +N", async () => {
    expect(await out("tail -n +3 n.md")).toBe("c 1\nb 2\n");
  });
  it("word a missing operand as GNU does, status 1", async () => {
    expect(await shell.run("head -n 1 nope.md")).toEqual({
      stdout: "",
      stderr: "head: cannot open 'nope.md' for reading: No such file or directory\n",
      exitCode: 1,
    });
  });
});
