import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CommandTestSession, openCommandTestSession } from "../../../test/fixtures/command-session.js";

// Expected outputs are GNU findutils 4.9's on the same files (LC_ALL=C.UTF-8).
let shell: CommandTestSession;
beforeAll(async () => {
  shell = await openCommandTestSession();
});
afterAll(() => shell?.close());

describe("find", () => {
  it("prints a starting point written with a trailing slash as given", async () => {
    expect((await shell.run("find d/ -type d")).stdout).toBe("d/\nd/sub\n");
    expect((await shell.run("find d/ -name '*.md'")).stdout).toBe("d/kv.md\nd/sub/h.md\n");
  });
  it("keeps the slash of the start on the start only", async () => {
    expect((await shell.run("find d/sub/")).stdout).toBe("d/sub/\nd/sub/h.md\n");
  });
});
