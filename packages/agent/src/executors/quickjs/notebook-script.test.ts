import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotebookSyntaxError, toNotebookScript } from "./notebook-script.js";
import { QuickJsExecutor } from "./quickjs-executor.js";

let executor: QuickJsExecutor;
beforeAll(async () => {
  executor = await QuickJsExecutor.create();
});
afterAll(async () => {
  await executor.close();
});

describe("notebook rewrite", () => {
  it("never changes the number of lines, so lines map one to one", () => {
    const code = "const a = 1,\n  b = 2;\nfunction f() {\n  return a;\n}\nclass C {}\nf() // last";
    const { script } = toNotebookScript(code);
    // The wrapper adds only the closing line.
    expect(script.split("\n").length).toBe(code.split("\n").length + 1);
  });

  it("lists top-level declarations with their lines", () => {
    const { declared } = toNotebookScript(
      "const { a, b: [c], ...rest } = obj;\nlet d;\nfunction f() { var inner = 1 }\nclass K {}\nif (x) { var v = 1 }\nfor (var i of xs) {}",
    );
    expect(declared).toEqual([
      { name: "a", line: 1 },
      { name: "c", line: 1 },
      { name: "rest", line: 1 },
      { name: "d", line: 2 },
      { name: "f", line: 3 },
      { name: "K", line: 4 },
      { name: "v", line: 5 },
      { name: "i", line: 6 },
    ]);
  });

  it("reports syntax errors with a 1-based line and column", () => {
    try {
      toNotebookScript("const ok = 1;\nconst = ;");
      expect.unreachable("expected a syntax error");
    } catch (error) {
      expect(error).toBeInstanceOf(NotebookSyntaxError);
      expect(error).toMatchObject({ line: 2, column: 7, message: "Unexpected token" });
    }
  });

  it("keeps statements apart where the previous line has no semicolon", async () => {
    const result = await executor.run("const log = []\nlog.push(1)\nconst [x] = [2]\n;[log, x]");
    expect(result.output).toEqual([[1], 2]);
  });

  it("returns a last expression that has parentheses, a semicolon or a trailing comment", async () => {
    expect((await executor.run("({ a: 1 });")).output).toEqual({ a: 1 });
    expect((await executor.run("1 + 1 // the answer")).output).toBe(2);
    expect((await executor.run("1 + 1; /* done */")).output).toBe(2);
    expect((await executor.run("const only = 1")).output).toBeUndefined();
  });

  it("awaits a last expression that is a promise", async () => {
    expect((await executor.run("Promise.resolve(7)")).output).toBe(7);
  });

  it("hoists functions within a step, and keeps them across steps", async () => {
    expect(
      (await executor.run("const early = twice(2);\nfunction twice(n) { return n * 2 }\nearly")).output,
    ).toBe(4);
    expect((await executor.run("twice(5)")).output).toBe(10);
  });

  it("maps a runtime error after multi-line code to the user's line", async () => {
    const result = await executor.run("const a = {\n  b: 1,\n};\nlet c = [\n  1,\n];\nnull.x");
    expect(result.error).toMatchObject({ kind: "runtime", name: "TypeError", line: 7, lineText: "null.x" });
  });

  it("gives a function defined in an earlier step the calling line of this step", async () => {
    await executor.run("function boom() {\n  throw new Error('deep');\n}");
    const result = await executor.run("const z = 1;\nboom()");
    expect(result.error).toMatchObject({ message: "deep", line: 2, lineText: "boom()" });
  });

  it("lets a later step declare the same name again, with another kind", async () => {
    await executor.run("const same = 1");
    await executor.run("let same = 2");
    await executor.run("function same() { return 3 }");
    expect((await executor.run("same()")).output).toBe(3);
  });
});
