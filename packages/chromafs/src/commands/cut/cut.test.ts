import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CommandTestSession, openCommandTestSession } from "../../../test/fixtures/command-session.js";

// Every expected output here is GNU coreutils 9.1's (LC_ALL=C.UTF-8, TZ unset) on the same files.
let shell: CommandTestSession;
beforeAll(async () => {
  shell = await openCommandTestSession();
});
afterAll(() => shell?.close());
const out = async (command: string) => (await shell.run(command)).stdout;

describe("cut", () => {
  it("cut prints lines without the delimiter whole unless -s", async () => {
    expect(await out("cut -d: -f2 d/kv.md")).toBe(" v\nplain\n");
    expect(await out("cut -s -d: -f1,3 d/kv.md")).toBe("k1: 3\n");
  });
});
