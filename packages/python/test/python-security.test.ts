// Escape and abuse attempts specific to Python in WebAssembly, each run on a real Pyodide
// sandbox: every one must be contained with a clear error, and the sandbox (with a canary
// variable set before each attack) and the host must stay healthy after each.
import type { ExecutionError, ExecutionResult, Tool } from "@atrium/spec";
import { contractTools } from "@atrium/spec/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_AUTHORIZED_IMPORTS, drainPythonWorkers, PythonExecutor } from "../src/index.js";

const authorized = `[${[...DEFAULT_AUTHORIZED_IMPORTS]
  .sort()
  .map((name) => `'${name}'`)
  .join(", ")}]`;
const outside = (module: string) =>
  `Import of ${module} is not allowed: it reaches outside the sandbox. Authorized imports are: ${authorized}`;
const forbiddenAttribute = (name: string) => `access to attribute '${name}' is not allowed in this sandbox`;

/** add(a, b), as the executor contract's cases call it. */
const add = contractTools().find((tool) => tool.name === "add") as Tool;

let executor: PythonExecutor;

beforeAll(async () => {
  executor = await PythonExecutor.create({
    tools: [add],
    maxMemoryBytes: 256 * 1024 * 1024,
    maxPrintedChars: 100_000,
    watchdogGraceMs: 500,
  });
}, 180_000);

afterAll(async () => {
  await executor?.close();
  await drainPythonWorkers();
});

async function attack(code: string, timeoutMs = 2_000): Promise<ExecutionResult> {
  // Each attack sets the state it checks: a sandbox lost in one test fails that test, with
  // the reason, rather than every later test with a NameError.
  expect((await executor.run("canary = 'alive'")).error).toBeUndefined();
  const result = await executor.run(code, { timeoutMs });
  expect(result.error?.stateLost, `the sandbox was replaced: ${result.error?.message}`).toBeUndefined();
  // The host is healthy (this process goes on) and so is the sandbox, state and tools included.
  const health = await executor.run("canary + str(add(a=1, b=1))");
  expect(health.error).toBeUndefined();
  expect(health.output).toBe("alive2");
  return result;
}

const refused = (name: string, message: string, line: number, lineText: string): ExecutionError => ({
  kind: "runtime",
  name,
  message,
  line,
  lineText,
});

describe("Python sandbox security", () => {
  it.each([
    ["the js FFI module", "import js", "js"],
    ["the pyodide_js module", "import pyodide_js", "pyodide_js"],
    ["pyodide.code.run_js", "from pyodide.code import run_js", "pyodide.code"],
    ["Pyodide's C core", "import _pyodide_core", "_pyodide_core"],
    ["os (os.system runs host commands under Node)", "import os", "os"],
    ["subprocess", "import subprocess", "subprocess"],
    ["ctypes (could call emscripten_run_script)", "import ctypes", "ctypes"],
    ["socket", "import socket", "socket"],
    ["importlib", "import importlib", "importlib"],
    ["sys (sys.modules edits)", "import sys", "sys"],
    ["builtins (patching)", "import builtins", "builtins"],
    ["gc (get_objects walks)", "import gc", "gc"],
    ["pickle", "import pickle", "pickle"],
  ])("refuses importing %s", async (_what, code, module) => {
    const result = await attack(code);
    expect(result.error).toEqual(refused("ImportError", outside(module), 1, code));
  });

  it("refuses an import that is not authorized, naming the allow-list", async () => {
    const result = await attack("import csv");
    expect(result.error).toEqual(
      refused(
        "ImportError",
        `Import of csv is not allowed. Authorized imports are: ${authorized}`,
        1,
        "import csv",
      ),
    );
  });

  it("refuses __import__ and __builtins__ by name", async () => {
    expect((await attack("__import__('os')")).error).toEqual(
      refused(
        "SandboxError",
        "the name '__import__' is not available in this sandbox",
        1,
        "__import__('os')",
      ),
    );
    expect((await attack("b = __builtins__")).error).toEqual(
      refused(
        "SandboxError",
        "the name '__builtins__' is not available in this sandbox",
        1,
        "b = __builtins__",
      ),
    );
  });

  it("refuses the __subclasses__ walk to the loader", async () => {
    const code = "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == 'BuiltinImporter']";
    // The outermost attribute of the chain is reported first.
    expect((await attack(code)).error).toEqual(
      refused("SandboxError", forbiddenAttribute("__subclasses__"), 1, code),
    );
  });

  it("refuses the same walk through getattr with strings", async () => {
    const code = "getattr(getattr((), '__class__'), '__base__')";
    expect((await attack(code)).error).toEqual(
      refused("SandboxError", forbiddenAttribute("__base__"), 1, code),
    );
  });

  it("refuses reaching a function's globals through operator.attrgetter", async () => {
    const code = "import operator\noperator.attrgetter('__globals__')(final_answer)";
    expect((await attack(code)).error).toEqual(
      refused(
        "SandboxError",
        forbiddenAttribute("__globals__"),
        2,
        "operator.attrgetter('__globals__')(final_answer)",
      ),
    );
  });

  it("refuses builtins' __self__ (the builtins module) directly and through getattr", async () => {
    expect((await attack("print.__self__")).error).toEqual(
      refused("SandboxError", forbiddenAttribute("__self__"), 1, "print.__self__"),
    );
    expect((await attack("getattr(len, '__self__')")).error).toEqual(
      refused("SandboxError", forbiddenAttribute("__self__"), 1, "getattr(len, '__self__')"),
    );
  });

  it("refuses a generator's frame read by str.format (caught by the audit hook)", async () => {
    const code = "def g():\n    yield 1\nit = g()\n'{0.gi_frame.f_globals}'.format(it)";
    expect((await attack(code)).error).toEqual(
      refused("SandboxError", forbiddenAttribute("gi_frame"), 4, "'{0.gi_frame.f_globals}'.format(it)"),
    );
  });

  it("refuses typing.get_type_hints, which evaluates annotation strings with the real builtins", async () => {
    const code =
      "import typing\nclass A:\n    x: '().__class__.__base__.__subclasses__()'\ntyping.get_type_hints(A)";
    expect((await attack(code)).error).toEqual(
      refused(
        "SandboxError",
        "evaluating type annotations (typing.get_type_hints, ForwardRef.evaluate) is not available in this sandbox; use the annotations as written",
        4,
        "typing.get_type_hints(A)",
      ),
    );
  });

  it("refuses string.Formatter, whose get_field returns attributes", async () => {
    const code = "import string\nstring.Formatter().get_field('0.__globals__', [final_answer], {})";
    expect((await attack(code)).error).toEqual(
      refused(
        "SandboxError",
        "string.Formatter is not available in this sandbox",
        2,
        "string.Formatter().get_field('0.__globals__', [final_answer], {})",
      ),
    );
  });

  it("refuses match-class patterns that read dunder attributes", async () => {
    const code = "match final_answer:\n    case object(__globals__=g):\n        pass";
    expect((await attack(code)).error).toEqual(
      refused("SandboxError", forbiddenAttribute("__globals__"), 2, "    case object(__globals__=g):"),
    );
  });

  it("hands out modules as read-only views without their private or unauthorized modules", async () => {
    expect((await attack("import fractions\nfractions.sys")).error).toEqual(
      refused(
        "AttributeError",
        "module 'fractions' attribute 'sys' is the module sys, which is not an authorized import",
        2,
        "fractions.sys",
      ),
    );
    expect((await attack("import collections\ncollections._sys")).error).toEqual(
      refused("AttributeError", "module 'collections' has no public attribute '_sys'", 2, "collections._sys"),
    );
    expect((await attack("import json\njson.dumps = None")).error).toEqual(
      refused("AttributeError", "module 'json' is read-only in this sandbox", 2, "json.dumps = None"),
    );
  });

  it("has no eval, exec, open or globals", async () => {
    for (const name of ["eval", "exec", "open", "globals"]) {
      const code = `${name}('1')`;
      expect((await attack(code)).error).toEqual(
        refused("NameError", `name '${name}' is not defined`, 1, code),
      );
    }
  });

  it("does not let code rebind final_answer or a tool", async () => {
    expect((await attack("final_answer = print")).error).toEqual(
      refused(
        "SandboxError",
        "'final_answer' is built in and cannot be assigned; choose another name",
        1,
        "final_answer = print",
      ),
    );
    expect((await attack("def add(a, b):\n    return 0")).error).toEqual(
      refused(
        "SandboxError",
        "'add' is built in and cannot be redefined; choose another name",
        1,
        "def add(a, b):",
      ),
    );
  });

  it("turns a huge allocation into a MemoryError under the wasm memory cap", async () => {
    expect((await attack("x = bytearray(10**9)")).error).toEqual({
      kind: "memory",
      name: "MemoryError",
      message: "out of memory: the sandbox may use at most 256 MiB (maxMemoryBytes)",
      line: 1,
      lineText: "x = bytearray(10**9)",
    });
  });

  it("turns runaway recursion into a RecursionError", async () => {
    expect((await attack("def f(n):\n    return f(n + 1)\nf(0)")).error).toEqual({
      kind: "runtime",
      name: "RecursionError",
      message: "maximum recursion depth exceeded",
      line: 2,
      lineText: "    return f(n + 1)",
    });
  });

  it("stops an output flood", async () => {
    const result = await attack("while True:\n    print('x' * 1000)");
    expect(result.error).toEqual({
      kind: "output-limit",
      name: "OutputLimitError",
      message:
        "The code printed more than 100000 characters (an output flood) and was stopped; print less, or a summary",
    });
    expect(result.logs.length).toBeLessThanOrEqual(20_100);
  });

  it("interrupts an infinite loop at its time limit and keeps the state", async () => {
    const started = Date.now();
    const result = await attack("while True:\n    pass", 500);
    expect(result.error).toEqual({
      kind: "timeout",
      name: "TimeoutError",
      message:
        "The code did not finish within 500 ms and was interrupted; variables set before the interruption are kept",
    });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("interrupts time.sleep at the time limit", async () => {
    const result = await attack("import time\ntime.sleep(100)", 500);
    expect(result.error?.kind).toBe("timeout");
    expect(result.error?.stateLost).toBeUndefined();
  });

  it("refuses sys access for frames via a caught exception's traceback", async () => {
    const code = "try:\n    1 / 0\nexcept Exception as e:\n    tb = e.__traceback__";
    expect((await attack(code)).error).toEqual(
      refused("SandboxError", forbiddenAttribute("__traceback__"), 4, "    tb = e.__traceback__"),
    );
  });

  it("replaces a sandbox whose code catches the interrupt, reporting stateLost", async () => {
    const code =
      "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass";
    expect((await executor.run("canary = 'alive'")).error).toBeUndefined();
    const result = await executor.run(code, { timeoutMs: 500 });
    expect(result.error).toEqual({
      kind: "timeout",
      name: "TimeoutError",
      message:
        "The code did not stop within 500 ms (it may catch KeyboardInterrupt); its sandbox was restarted, so every variable is lost",
      stateLost: true,
    });
    const after = await executor.run("canary");
    expect(after.error).toMatchObject({
      kind: "runtime",
      name: "NameError",
      message: "name 'canary' is not defined",
    });
    expect((await executor.run("add(2, 3)")).output).toBe(5);
    expect((await executor.run("canary = 'alive'")).error).toBeUndefined();
  }, 180_000);
});
