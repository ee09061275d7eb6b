import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CommandTestSession, openCommandTestSession } from "../../test/fixtures/command-session.js";

// Every expected output here is GNU coreutils 9.1's (LC_ALL=C.UTF-8, TZ unset) on the same files.
let shell: CommandTestSession;
beforeAll(async () => {
  shell = await openCommandTestSession();
});
afterAll(() => shell?.close());
const out = async (command: string) => (await shell.run(command)).stdout;

describe("globs ending in a slash", () => {
  it("match directories only and keep the slash", async () => {
    expect(await out("echo */")).toBe("d/ tmp/\n");
    expect(await out("echo d/*/")).toBe("d/sub/\n");
  });
});
