import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGnu } from "../../../test/oracle/run-gnu.js";
import { type CommandTestSession, openCommandTestSession } from "../test-fixtures.js";

// Every expected output here is GNU coreutils 9.1's (LC_ALL=C.UTF-8, TZ unset) on the same files.
let shell: CommandTestSession;
beforeAll(async () => {
  shell = await openCommandTestSession();
});
afterAll(() => shell?.close());
const out = async (command: string) => (await shell.run(command)).stdout;

describe("sort", () => {
  it("sorts by code point with a last-resort whole-line comparison", async () => {
    expect(await out("sort n.md")).toBe("a 10\nb 2\nb 2\nc 1\n");
    expect(await out("sort -u n.md")).toBe("a 10\nb 2\nc 1\n");
  });
  it("sorts by numeric keys and fields", async () => {
    expect(await out("sort -k2n n.md")).toBe("c 1\nb 2\nb 2\na 10\n");
    expect(await out("sort -rn -k2 n.md")).toBe("a 10\nb 2\nb 2\nc 1\n");
    expect(await out("sort -t: -k2 d/kv.md")).toBe("plain\nk1: v: 3\n");
  });
  it("sorts an input of hundreds of thousands of lines", async () => {
    const lines = "{ seq 100000; seq 100000; seq 100000; }";
    expect(await shell.run(`${lines} | sort | tail -3`)).toEqual({
      stdout: "99999\n99999\n99999\n",
      stderr: "",
      exitCode: 0,
    });
    expect(await out(`${lines} | sort -u | wc -l`)).toBe("100000\n");
  });
  it("orders by code point where UTF-16 order differs (a surrogate against U+E000..U+FFFF)", async () => {
    expect(await out("printf '%s\\n' '\uE000' '\u{1F600}' a '\u00E9' | sort")).toBe(
      "a\n\u00E9\n\uE000\n\u{1F600}\n",
    );
  });
  it("orders as GNU sort does under every flag it models, on lines that part code unit and code point order", async () => {
    const lines = [
      "b:2 \u{1F600}x",
      "B:10 \uE000",
      "a:-3 \u00E9",
      "  a:2 z",
      "b:2 \u{1F600}x",
      "\uE000:1 q",
      "\u{1F600}:1 q",
      "A:2.5 Z",
      "a:2 z",
      "\t9:0 tab",
      "",
    ];
    const input = `printf '%s\\n' ${lines.map((line) => `'${line}'`).join(" ")}`;
    const flagSets = [
      "",
      "-r",
      "-u",
      "-ru",
      "-f",
      "-fu",
      "-b",
      "-n",
      "-rn",
      "-nu",
      "-k2",
      "-k2,2n",
      "-k2r -k1",
      "-t: -k2n",
      "-t: -k2,2 -s",
      "-s -k1,1f",
    ];
    for (const flags of flagSets) {
      const command = `${input} | sort ${flags}`;
      expect({ flags, stdout: await out(command) }).toEqual({ flags, stdout: runGnu(command, "/").stdout });
    }
  });
});
