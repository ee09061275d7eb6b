import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CommandTestSession, openCommandTestSession } from "../../../test/fixtures/command-session.js";
import { runGnu } from "../../../test/oracle/run-gnu.js";

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
      "-k1.3",
      "-k1,1.4",
      "-k2.2,2.3",
      "-t: -k1,1.3",
      "-k1,1b",
      "-t: -k2,2b",
      "-b -k1.2",
      "-t: -k2nr -k1",
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
  it("keys are cut from UTF-8 bytes and -n compares digit strings exactly, as GNU's", async () => {
    const cases: [string[], string][] = [
      [["x z", "xya"], "-k1.3"],
      [["\u00E9b", "ac"], "-k1.2"],
      [["+\uE000,-", "z0B", "1 :A,"], "-k1.3"],
      [["a", " b"], "-k1,1b"],
      [["12345678901234567891", "12345678901234567890"], "-nu"],
      [["0.30000000000000001", "0.3", "-0.30000000000000001", "-0.3", "-0", "0"], "-n -s"],
      [[`1${"0".repeat(400)}`, `-2${"0".repeat(400)}`, "-1e3", "007", "7.000"], "-n -s"],
    ];
    for (const [lines, flags] of cases) {
      const command = `printf '%s\\n' ${lines.map((line) => `'${line}'`).join(" ")} | sort ${flags}`;
      expect({ flags, stdout: await out(command) }).toEqual({ flags, stdout: runGnu(command, "/").stdout });
    }
  });

  it("refuses what GNU refuses, with its message", async () => {
    for (const [options, message] of [
      ["-k0", "field number is zero: invalid field specification \u20180\u2019"],
      ["-k1,0", "field number is zero: invalid field specification \u20181,0\u2019"],
      ["-k1.0", "character offset is zero: invalid field specification \u20181.0\u2019"],
      ["-t \u00E9", "multi-character tab \u2018\u00E9\u2019"],
      ["-t ab", "multi-character tab \u2018ab\u2019"],
      ["-t ''", "empty tab"],
    ]) {
      expect(await shell.run(`echo a | sort ${options}`)).toEqual({
        stdout: "",
        stderr: `sort: ${message}\n`,
        exitCode: 2,
      });
      expect(runGnu(`echo a | sort ${options} 2>&1`, "/").stdout).toBe(`sort: ${message}\n`);
    }
  });
  it("matches GNU sort on random lines under 26 flag sets (fixed seed)", async () => {
    // Blanks, digits, signs, separators, case, and characters of 2, 3 and 4 UTF-8 bytes: where
    // byte offsets, numeric parsing, folding and code point order part from the naive ones.
    const alphabet = [..."abAB  \t120-.:\u00E9\uE000\uFFFD\u{1F600}\u{1D400}z+,"];
    let seed = 17;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T;
    const randomLines = () => {
      const lines: string[] = [];
      for (let n = 1 + Math.floor(random() * 8); lines.length < n; ) {
        if (lines.length > 0 && random() < 0.2) lines.push(pick(lines));
        else lines.push(Array.from({ length: Math.floor(random() * 7) }, () => pick(alphabet)).join(""));
      }
      return lines;
    };
    const flagSets = [
      "",
      "-r",
      "-u",
      "-f",
      "-fu",
      "-fr",
      "-b",
      "-bu",
      "-n",
      "-nu",
      "-rn",
      "-s -k1,1f",
      "-k1.3",
      "-k1,1.4",
      "-k2.2,2.3",
      "-k1,1b",
      "-k1b,1",
      "-b -k1.2",
      "-n -k2",
      "-k2n -k1",
      "-k2 -r",
      "-u -k1,1",
      "-ru -k2",
      "-t: -k1,1.3",
      "-t: -k2,2b",
      "-t: -k2nr -k1",
    ];
    const differing: string[] = [];
    for (const flags of flagSets) {
      for (let i = 0; i < 12; i++) {
        const command = `printf '%s\\n' ${randomLines()
          .map((line) => `'${line}'`)
          .join(" ")} | sort ${flags}`;
        if ((await out(command)) !== runGnu(command, "/").stdout) differing.push(command);
      }
    }
    expect(differing).toEqual([]);
  });
});
