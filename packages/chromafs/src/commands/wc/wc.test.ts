import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CommandTestSession, openCommandTestSession } from "../../../test/fixtures/command-session.js";

// Every expected output here is GNU coreutils 9.1's (LC_ALL=C.UTF-8, TZ unset) on the same files.
let shell: CommandTestSession;
beforeAll(async () => {
  shell = await openCommandTestSession();
});
afterAll(() => shell?.close());
const out = async (command: string) => (await shell.run(command)).stdout;

describe("wc", () => {
  it("sizes its columns from the files' total size", async () => {
    expect(await out("wc n.md r.md")).toBe(" 4  8 17 n.md\n 4  4  8 r.md\n 8 12 25 total\n");
    expect(await out("wc -c noeol.md empty.md")).toBe("13 noeol.md\n 0 empty.md\n13 total\n");
  });
  it("uses width 1 for one count of one file and 7 for standard input", async () => {
    expect(await out("wc -l n.md")).toBe("4 n.md\n");
    expect(await out("cat n.md | wc")).toBe("      4       8      17\n");
  });
  it("counts characters apart from bytes", async () => {
    expect(await out("wc -m -w u8.md")).toBe("2 5 u8.md\n");
  });
  it("-L prints the widest line's display width: tabs to the next multiple of 8, wide characters 2", async () => {
    // just-bash's wc refused -L (exit 1)
    expect(
      await shell.run("printf 'tab\\there\\n中文中文x\\n' > /tmp/wide.md; wc -L /tmp/wide.md n.md"),
    ).toEqual({
      stdout: "12 /tmp/wide.md\n 4 n.md\n12 total\n",
      stderr: "",
      exitCode: 0,
    });
    expect(await out("wc -lL /tmp/wide.md")).toBe(" 2 12 /tmp/wide.md\n");
    // `\r` ends a line as `\n` does; a zero-width space and a combining accent take no column
    expect(await out("printf 'ab\\tc\\r\\nzz\\n' | wc -L")).toBe("9\n");
    expect(await out("printf '😀\\u200be\\u0301\\n' | wc --max-line-length")).toBe("3\n");
  });
});
