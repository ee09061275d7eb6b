import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CommandTestSession, openCommandTestSession } from "../../../test/fixtures/command-session.js";

// Every expected output here is GNU coreutils 9.1's (LC_ALL=C.UTF-8, TZ unset) on the same files.
let shell: CommandTestSession;
beforeAll(async () => {
  shell = await openCommandTestSession();
});
afterAll(() => shell?.close());
const out = async (command: string) => (await shell.run(command)).stdout;

describe("du", () => {
  it("du counts 4 KiB blocks, directories after their contents", async () => {
    expect(await out("du -a d")).toBe("4\td/kv.md\n4\td/sub/h.md\n8\td/sub\n16\td\n");
    expect(await out("du -sh d")).toBe("16K\td\n");
  });
});
