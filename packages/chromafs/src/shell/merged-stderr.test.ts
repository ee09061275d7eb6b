import { parse } from "just-bash";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CommandTestSession, openCommandTestSession } from "../../test/fixtures/command-session.js";
import { MERGED_STDERR_VARIABLE } from "../commands/written-order.js";
import { mergedStderrPlugin } from "./merged-stderr.js";

/** The names of the simple commands the plugin marks, in script order. */
function marked(script: string): string[] {
  const { ast } = mergedStderrPlugin(new Set(["cat", "head", "wc"])).transform({
    ast: parse(script),
    metadata: {},
  });
  const names: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (value === null || typeof value !== "object") return;
    const node = value as Record<string, unknown>;
    if (node.type === "SimpleCommand") {
      const assignments = node.assignments as { name: string }[];
      if (assignments.some((assignment) => assignment.name === MERGED_STDERR_VARIABLE)) {
        const name = node.name as { parts: { value: string }[] };
        names.push(name.parts[0]!.value);
      }
    }
    for (const child of Object.values(node)) visit(child);
  };
  visit(ast);
  return names;
}

describe("which commands have their stderr where their stdout goes", () => {
  it("marks 2>&1, >f 2>&1, &>f, |& and compound commands' redirections", () => {
    expect(marked("cat a b 2>&1")).toEqual(["cat"]);
    expect(marked("cat a b >f 2>&1")).toEqual(["cat"]);
    expect(marked("cat a b &>f; wc a &>>f")).toEqual(["cat", "wc"]);
    expect(marked("cat a b |& head -3")).toEqual(["cat"]);
    expect(marked("cat a b 2>&1 | head -3")).toEqual(["cat"]);
    expect(marked("{ cat a; head b; } 2>&1 | wc -l")).toEqual(["cat", "head"]);
    expect(marked("for f in a b; do cat $f; done 2>&1")).toEqual(["cat"]);
    expect(marked("x=$(cat a b 2>&1)")).toEqual(["cat"]);
    expect(marked("cat a >&f")).toEqual(["cat"]);
  });
  it("leaves alone what goes to two places, and commands it does not implement", () => {
    expect(marked("cat a b")).toEqual([]);
    expect(marked("cat a b 2>&1 >/dev/null")).toEqual([]);
    expect(marked("cat a b >f 2>g")).toEqual([]);
    expect(marked("cat a b >f 2>f")).toEqual([]);
    expect(marked("{ cat a; } 2>&1 >f")).toEqual([]);
    // in a pipeline, stdout is the pipe and stderr the group's
    expect(marked("{ cat a | head -1; } 2>&1")).toEqual(["head"]);
    expect(marked("echo a 2>&1; grep x a 2>&1")).toEqual([]);
    expect(marked("f() { cat a; }; f 2>&1")).toEqual([]);
  });
});

// Every expected output here is GNU coreutils 9.1's and sed 4.9's (LC_ALL=C.UTF-8) on the same files.
let shell: CommandTestSession;
beforeAll(async () => {
  shell = await openCommandTestSession();
});
afterAll(() => shell?.close());
const out = async (command: string) => (await shell.run(command)).stdout;

describe("2>&1 keeps the order output was written in", () => {
  it("cat: the message between the files it came between", async () => {
    // just-bash printed all of stdout, then the messages: `head -3` showed no error
    expect(await out("cat nope.md n.md 2>&1 | head -3")).toBe(
      "cat: nope.md: No such file or directory\nb 2\na 10\n",
    );
    expect(await out("cat n.md nope.md d 2>&1")).toBe(
      "b 2\na 10\nc 1\nb 2\ncat: nope.md: No such file or directory\ncat: d: Is a directory\n",
    );
    expect(await out("cat nope.md n.md |& head -2")).toBe("cat: nope.md: No such file or directory\nb 2\n");
    expect(await out("{ cat nope.md; cat n.md; } 2>&1 | head -2")).toBe(
      "cat: nope.md: No such file or directory\nb 2\n",
    );
    expect(await out("cat nope.md n.md 2>&1 >/dev/null")).toBe("cat: nope.md: No such file or directory\n");
    expect(await out("cat 2>&1 < n.md")).toBe("b 2\na 10\nc 1\nb 2\n");
  });
  it("head, tail, wc, stat, du and cut: each message where its operand is", async () => {
    expect(await out("head -n 1 n.md nope.md d/kv.md 2>&1")).toBe(
      "==> n.md <==\nb 2\nhead: cannot open 'nope.md' for reading: No such file or directory\n\n==> d/kv.md <==\nk1: v: 3\n",
    );
    expect(await out("tail -n 1 nope.md n.md 2>&1")).toBe(
      "tail: cannot open 'nope.md' for reading: No such file or directory\n==> n.md <==\nb 2\n",
    );
    expect(await out("wc -l n.md nope.md d 2>&1")).toBe(
      "      4 n.md\nwc: nope.md: No such file or directory\nwc: d: Is a directory\n      0 d\n      4 total\n",
    );
    expect(await out("stat -c %s n.md nope.md n.md 2>&1")).toBe(
      "17\nstat: cannot statx 'nope.md': No such file or directory\n17\n",
    );
    expect(await out("du -s d/sub nope.md 2>&1")).toBe(
      "8\td/sub\ndu: cannot access 'nope.md': No such file or directory\n",
    );
    expect(await out("cut -c1 n.md nope.md d/kv.md 2>&1")).toBe(
      "b\na\nc\nb\ncut: nope.md: No such file or directory\nk\np\n",
    );
  });
  it("ls and sed: messages first, as GNU writes them", async () => {
    expect(await out("ls n.md nope.md d 2>&1")).toBe(
      "ls: cannot access 'nope.md': No such file or directory\nn.md\n\nd:\nkv.md\nsub\n",
    );
    expect(await out("sed -n 1p n.md nope.md 2>&1")).toBe(
      "sed: can't read nope.md: No such file or directory\nb 2\n",
    );
  });
  it("keeps stdout and stderr apart without 2>&1", async () => {
    expect(await shell.run("cat nope.md n.md")).toEqual({
      stdout: "b 2\na 10\nc 1\nb 2\n",
      stderr: "cat: nope.md: No such file or directory\n",
      exitCode: 1,
    });
    expect(await shell.run("wc -l n.md nope.md 2>/dev/null")).toEqual({
      stdout: " 4 n.md\n 4 total\n",
      stderr: "",
      exitCode: 1,
    });
  });
});
