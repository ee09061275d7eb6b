import { Bash, InMemoryFs } from "just-bash";
import { describe, expect, it } from "vitest";
import { compileMatcher } from "./gnu/gnu-matcher.js";
import { parseGrepOptions } from "./gnu/grep-options.js";
import { createGrepCommands } from "./grep-command.js";

// Expected outputs below were taken from GNU grep 3.8 under LC_ALL=C.UTF-8 on the same files.
const FILES = {
  "/m.txt": "a\na\nb\na\nc\nd\ne\na\n",
  "/k.txt": "x\nKube\ny\n",
  "/zh.txt": "title: 简介 AI 原生\n",
  "/noeol.txt": "abc",
};

async function grep(command: string): Promise<{ stdout: string; stderr: string; exitCode: number }> {
  const bash = new Bash({ fs: new InMemoryFs(FILES), customCommands: createGrepCommands(null) });
  const { stdout, stderr, exitCode } = await bash.exec(command);
  return { stdout, stderr, exitCode };
}

describe("own grep", () => {
  it("prints a line selected inside another match's context as selected, with -- between groups", async () => {
    expect((await grep("grep -n -A1 a /m.txt")).stdout).toBe("1:a\n2:a\n3-b\n4:a\n5-c\n--\n8:a\n");
  });

  it("puts -- between groups of different files", async () => {
    expect((await grep("grep -n -C1 Kube /k.txt /k.txt")).stdout).toBe(
      "/k.txt-1-x\n/k.txt:2:Kube\n/k.txt-3-y\n--\n/k.txt-1-x\n/k.txt:2:Kube\n/k.txt-3-y\n",
    );
  });

  it("prints the trailing context after -m as context, matches included", async () => {
    expect((await grep("grep -m2 -A3 -n a /m.txt")).stdout).toBe("1:a\n2:a\n3-b\n4-a\n5-c\n");
  });

  it("keeps the separators of -o with context but prints no context lines", async () => {
    expect((await grep("grep -o -C1 -n a /m.txt")).stdout).toBe("1:a\n2:a\n4:a\n--\n8:a\n");
  });

  it("takes the longest alternative for -o, as POSIX does", async () => {
    expect((await grep("echo abcd | grep -o 'a\\|ab\\|abc'")).stdout).toBe("abc\n");
    expect((await grep("echo Mintlify | grep -oE 'Mint|Mintlify'")).stdout).toBe("Mintlify\n");
  });

  it("reads \\w, \\< and \\> over Unicode", async () => {
    expect((await grep("grep -ow '\\w*' /zh.txt")).stdout).toBe("title\n简介\nAI\n原生\n");
    expect((await grep("grep -o '\\<[A-Z]*\\>' /zh.txt")).stdout).toBe("AI\n");
  });

  it("lists with -l even when -c is given, and ends a last line without newline", async () => {
    expect((await grep("grep -c -l a /m.txt /m.txt")).stdout).toBe("/m.txt\n/m.txt\n");
    expect((await grep("grep b /noeol.txt")).stdout).toBe("abc\n");
  });

  it("reads a pattern file of more lines than fit on the call stack", async () => {
    expect(await grep("{ seq 70000; seq 70000; echo Kube; } | grep -f - /k.txt")).toEqual({
      stdout: "Kube\n",
      stderr: "",
      exitCode: 0,
    });
  });

  it("reports a missing operand with status 2 and still prints the matches", async () => {
    expect(await grep("grep Kube /k.txt /nope")).toEqual({
      stdout: "/k.txt:Kube\n",
      stderr: "grep: /nope: No such file or directory\n",
      exitCode: 2,
    });
  });
});

describe("grep options", () => {
  it("parses bundles, values, -NUM and options after operands", () => {
    const parsed = parseGrepOptions(["-rnA3", "-e", "x", "/d", "-2", "--include=*.md"]);
    expect(parsed.ok && parsed.options).toMatchObject({
      recursive: true,
      lineNumber: true,
      after: 2,
      before: 2,
      patterns: ["x"],
      operands: ["/d"],
      includes: ["*.md"],
    });
  });

  it("leaves an unknown option to just-bash", () => {
    expect(parseGrepOptions(["-T", "x"])).toMatchObject({ ok: false, unsupported: "-T", unknown: ["-T"] });
  });
});

describe("matcher", () => {
  it("gives the leftmost-longest match over several patterns", () => {
    const matcher = compileMatcher(["Kube", "Kubernetes"], {
      syntax: "basic",
      ignoreCase: false,
      word: false,
      line: false,
    });
    expect(matcher?.matches("on Kubernetes")).toEqual([[3, 13]]);
  });
});
