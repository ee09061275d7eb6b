import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CommandTestSession, openCommandTestSession } from "../../../test/fixtures/command-session.js";
import { parseSedOptions } from "./sed-command.js";
import { parseSedScript } from "./sed-script.js";

// Every expected output here is GNU sed 4.9's (LC_ALL=C.UTF-8) on the same input.
let shell: CommandTestSession;
beforeAll(async () => {
  shell = await openCommandTestSession();
});
afterAll(() => shell?.close());
const out = async (command: string) => (await shell.run(command)).stdout;
const PAGE = "printf '# T\\n## Setup\\none\\n\\ntwo\\n## Next\\nthree\\n## Last\\nfour\\n'";

describe("sed ranges", () => {
  it("looks for a regex end from the line after the start on", async () => {
    // just-bash 3.4.2 closed the range on its start line: `a\na\n` and one heading
    expect(await out("printf 'a\\nb\\na\\n' | sed -n '/a/,/a/p'")).toBe("a\nb\na\n");
    expect(await out(`${PAGE} | sed -n '/^## Setup/,/^## /p'`)).toBe("## Setup\none\n\ntwo\n## Next\n");
    // the range starts again after it ended
    expect(await out(`${PAGE} | sed -n '/^## /,/^## /p'`)).toBe(
      "## Setup\none\n\ntwo\n## Next\n## Last\nfour\n",
    );
    expect(await out(`${PAGE} | sed '/^## Setup/,/^## /d'`)).toBe("# T\nthree\n## Last\nfour\n");
  });
  it("0,/re/ lets the end match on line 1; 1,/re/ does not", async () => {
    expect(await out("printf 'x\\ny\\nx\\nz\\n' | sed -n '0,/x/p'")).toBe("x\n");
    expect(await out("printf 'x\\ny\\nx\\nz\\n' | sed -n '1,/x/p'")).toBe("x\ny\nx\n");
  });
  it("a line-number end at or before the start is the start line alone", async () => {
    // just-bash never closed `/b/,2` once it started past line 2
    expect(await out("printf '1\\n2\\n3\\n' | sed -n '2,1p'")).toBe("2\n");
    expect(await out("printf 'a\\nx\\nb\\nc\\nd\\n' | sed -n '/b/,2p'")).toBe("b\n");
    expect(await out("printf 'a\\nb\\nc\\nd\\n' | sed -n '/b/,3p'")).toBe("b\nc\n");
  });
  it("addr,+N and addr,~N", async () => {
    expect(await out("printf 'a\\nb\\nc\\na\\nb\\n' | sed -n '/a/,+1p'")).toBe("a\nb\na\nb\n");
    expect(await out("seq 12 | sed -n '/^3$/,~4p'")).toBe("3\n4\n");
    expect(await out("seq 12 | sed -n '/^4$/,~4p'")).toBe("4\n5\n6\n7\n8\n");
    expect(await out("seq 5 | sed -n '2,+0p'")).toBe("2\n");
  });
  it("$, first~step, ! and blocks", async () => {
    expect(await out("seq 5 | sed -n '/3/,$p'")).toBe("3\n4\n5\n");
    expect(await out("seq 10 | sed -n '0~4p'")).toBe("4\n8\n");
    expect(await out("seq 5 | sed -n '$!p'")).toBe("1\n2\n3\n4\n");
    expect(await out(`${PAGE} | sed -n '/^## Setup/,/^## /{/^## /!p}'`)).toBe("one\n\ntwo\n");
    expect(await out(`${PAGE} | sed -n '/^## Next/,/^## /{=;p}'`)).toBe("6\n## Next\n7\nthree\n8\n## Last\n");
  });
});

describe("sed commands", () => {
  it("s with g, N, Ng, p, I, groups, & and case conversion", async () => {
    expect(await out("printf 'baaac\\n' | sed 's/a*/x/g'")).toBe("xbxcx\n");
    expect(await out("printf 'abc\\n' | sed 's/b*/X/2'")).toBe("aXc\n");
    expect(await out("printf 'a a a a\\n' | sed 's/a/X/2g'")).toBe("a X X X\n");
    expect(await out("printf 'one two\\n' | sed -E 's/(\\w+) (\\w+)/\\2 \\1/'")).toBe("two one\n");
    expect(await out("printf 'Hello World\\n' | sed 's/\\w\\+/\\L\\u&/g'")).toBe("Hello World\n");
    expect(await out("printf 'MINT mint\\n' | sed -n 's/mint/[&]/gIp'")).toBe("[MINT] [mint]\n");
    expect(await out("printf 'a b\\n' | sed 's| |\\t|'")).toBe("a\tb\n");
    // POSIX's longest match at the leftmost start, where backtracking takes the first alternative
    expect(await out("echo ab | sed 's/a\\|ab/X/'")).toBe("X\n");
    expect(await out("echo xabcabc | sed -E 's/(a|ab)(c|bcd)*/[\\1|\\2]/g'")).toBe("x[ab|c][ab|c]\n");
  });
  it("q, Q, = and y", async () => {
    expect(await shell.run("seq 9 | sed '/3/q 5'")).toEqual({ stdout: "1\n2\n3\n", stderr: "", exitCode: 5 });
    expect(await out("seq 9 | sed 3Q")).toBe("1\n2\n");
    expect(await out("seq 3 | sed -n '$='")).toBe("3\n");
    expect(await out("printf 'abc\\n' | sed 'y/abc/xyz/'")).toBe("xyz\n");
  });
  it("keeps a last line without a newline as it was, and joins files as one stream", async () => {
    expect(await out("printf 'a\\nb' | sed p")).toBe("a\na\nb\nb");
    expect(await out("sed -n '$p' noeol.md n.md")).toBe("b 2\n");
    // a line that had no newline gets one only when more output follows it
    expect(await out("sed -n '2p' noeol.md n.md")).toBe("three");
    expect(await out("sed -n '2,3p' noeol.md n.md")).toBe("three\nb 2\n");
  });
  it("reports files it cannot read as GNU does", async () => {
    expect(await shell.run("sed -n 1p nope.md n.md")).toEqual({
      stdout: "b 2\n",
      stderr: "sed: can't read nope.md: No such file or directory\n",
      exitCode: 2,
    });
    expect(await shell.run("sed -n p n.md d")).toEqual({
      stdout: "b 2\na 10\nc 1\nb 2\n",
      stderr: "sed: read error on d: Is a directory\n",
      exitCode: 4,
    });
  });
  it("n, N, P, hold space, a i c, labels and branches", async () => {
    expect(await out("printf 'a\\n' | sed 'n;d'")).toBe("a\n");
    expect(await out("printf 'a\\nb\\nc\\n' | sed '$!N;s/\\n/+/'")).toBe("a+b\nc\n");
    expect(await out("printf 'a\\nb\\nc\\n' | sed -n '1!G;h;$p'")).toBe("c\nb\na\n");
    expect(await out("printf 'a\\nb\\nc\\n' | sed ':a;N;$!ba;s/\\n/ /g'")).toBe("a b c\n");
    expect(await out("printf 'a\\nb\\n' | sed '1a  hello'")).toBe("a\nhello\nb\n");
    expect(await out("printf 'a\\nb\\n' | sed '1i\\  hi'")).toBe("  hi\na\nb\n");
    expect(await out("printf 'a\\nb' | sed '$a end'")).toBe("a\nb\nend\n");
    // `c` over a range: the text once, at the range's end; with `!`, for every line
    expect(await out("printf 'a\\nb\\nc\\n' | sed '1,2c\\\nC'")).toBe("C\nc\n");
    expect(await out("printf 'a\\nb\\nc\\n' | sed '2!c C'")).toBe("C\nb\nC\n");
    expect(await out("printf 'ab\\ncd\\n' | sed 's/a/A/;T;s/$/ !/'")).toBe("Ab !\ncd\n");
    expect(await out("printf 'a\\nb\\nc\\n' | sed -n '2{N;P}'")).toBe("b\n");
  });
  it("reads the lines `n` consumes into the range's line numbers", async () => {
    expect(await out("printf 'h\\n1\\n2\\nh\\n3\\n' | sed -n '/^h/{n;p}'")).toBe("1\n3\n");
    expect(await out("printf 'a\\nb\\nc\\n' | sed -n '/a/,/b/{n;p}'")).toBe("b\n");
  });
  it("leaves what it does not model to just-bash's sed", async () => {
    expect(parseSedScript("$!N;$!D", false)).toBeNull();
    expect(parseSedScript("w out.txt", false)).toBeNull();
    expect(parseSedScript("b nowhere", false)).toBeNull();
    expect(parseSedScript("s//x/", false)).toBeNull();
    expect(parseSedOptions(["-i", "s/a/b/", "f"])).toBeNull();
    expect(parseSedOptions(["-ne", "p", "f"])).toEqual({
      quiet: true,
      extended: false,
      scripts: ["p"],
      operands: ["f"],
    });
    expect(await out("printf 'a\\nb\\nc\\n' | sed '$!N;$!D'")).toBe("b\nc\n");
  });
});
