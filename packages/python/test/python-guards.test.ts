// Issue 24: every route of the outside audit, with plain model-written code and default options
// (the wildcard allow-list where the route needs it), run on the real Pyodide executor. Each
// must end in its exact refusal, with the host healthy afterwards: this process alive, the
// sandbox still computing `1 + 1`, its state kept, and no host file's content in any result.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ExecutionError, type ExecutionResult, type Tool, ToolError } from "@atrium/spec";
import { contractTools } from "@atrium/spec/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_AUTHORIZED_IMPORTS,
  drainPythonWorkers,
  PythonExecutor,
  type ToolCallEvent,
} from "../src/index.js";

const SECRET = `atrium-guard-secret-${process.pid}-${Date.now()}`;
let secretDir: string;
let secretFile: string;
const toolCalls: ToolCallEvent[] = [];

const tools: Tool[] = [
  // add(a, b), as the executor contract's cases call it.
  ...contractTools().filter((tool) => tool.name === "add"),
  {
    name: "refuse",
    description: "Always fails.",
    inputSchema: { type: "object" },
    async execute() {
      throw new ToolError("refuse", "not today");
    },
  },
];

let executor: PythonExecutor;
let wildcard: PythonExecutor;

beforeAll(async () => {
  secretDir = mkdtempSync(join(tmpdir(), "atrium-guards-"));
  secretFile = join(secretDir, "secret.txt");
  writeFileSync(secretFile, SECRET);
  [executor, wildcard] = await Promise.all([
    PythonExecutor.create({ tools, onToolCall: (event) => toolCalls.push(event) }),
    PythonExecutor.create({ tools, additionalAuthorizedImports: ["*"] }),
  ]);
  for (const sandbox of [executor, wildcard]) {
    expect((await sandbox.run("canary = 'alive'")).error).toBeUndefined();
  }
}, 180_000);

afterAll(async () => {
  await executor?.close();
  await wildcard?.close();
  await drainPythonWorkers();
  rmSync(secretDir, { recursive: true, force: true });
});

/** Runs one attack, then checks that the host and the sandbox are healthy. */
async function attack(code: string, on = executor): Promise<ExecutionResult> {
  toolCalls.length = 0;
  const result = await on.run(code, { timeoutMs: 5_000 });
  expect(JSON.stringify(result)).not.toContain(SECRET);
  expect(process.exitCode).toBeUndefined();
  const health = await on.run("str(1 + 1) + canary");
  expect(health.error).toBeUndefined();
  expect(health.output).toBe("2alive");
  return result;
}

const refused = (name: string, message: string, line?: number, lineText?: string): ExecutionError => ({
  kind: "runtime",
  name,
  message,
  ...(line === undefined ? {} : { line, lineText }),
});
const forbiddenAttribute = (name: string) => `access to attribute '${name}' is not allowed in this sandbox`;
const EVALUATION =
  "evaluating type annotations (typing.get_type_hints, ForwardRef.evaluate) is not available in this sandbox; use the annotations as written";
const rebound = (name: string) => `'${name}' is built in and cannot be redefined; choose another name`;
const assigned = (name: string) => `'${name}' is built in and cannot be assigned; choose another name`;
const lastLine = (code: string) => code.split("\n").at(-1) as string;
const wildcardList = `[${["*", ...DEFAULT_AUTHORIZED_IMPORTS]
  .sort()
  .map((name) => `'${name}'`)
  .join(", ")}]`;
const outside = (module: string) =>
  `Import of ${module} is not allowed: it reaches outside the sandbox. Authorized imports are: ${wildcardList}`;

describe("routes to the real builtins", () => {
  it("refuses typing.ForwardRef('getattr').evaluate()", async () => {
    const code = "import typing\ntyping.ForwardRef('getattr').evaluate()";
    expect((await attack(code)).error).toEqual(refused("SandboxError", EVALUATION, 2, lastLine(code)));
  });

  it("refuses a ForwardRef reached through typing.get_args, and ForwardRef._evaluate", async () => {
    const code = "import typing\nref = typing.get_args(typing.List['x'])[0]\nref.evaluate()";
    expect((await attack(code)).error).toEqual(refused("SandboxError", EVALUATION, 3, "ref.evaluate()"));
    const direct =
      "import typing\ntyping.ForwardRef('getattr')._evaluate({}, {}, recursive_guard=frozenset())";
    expect((await attack(direct)).error).toEqual(refused("SandboxError", EVALUATION, 2, lastLine(direct)));
  });

  it("refuses typing.get_type_hints on a string annotation with globalns={}", async () => {
    const code =
      "import typing\nclass A:\n    x: \"exec('import os')\"\ntyping.get_type_hints(A, globalns={})";
    expect((await attack(code)).error).toEqual(refused("SandboxError", EVALUATION, 4, lastLine(code)));
  });

  it("refuses source compiled for the guest by stdlib code when it names a real-only builtin", async () => {
    // The ForwardRef constructor compiles its string: with the real builtins, 'getattr' would be
    // the unguarded one.
    const code = "import typing\ntyping.List['getattr']";
    expect((await attack(code)).error).toEqual(
      refused("SandboxError", "the name 'getattr' is not available in this sandbox", 2, lastLine(code)),
    );
  });

  it("refuses functools.update_wrapper and wraps copying __closure__", async () => {
    const update =
      "import functools\nclass Sink(dict):\n    pass\nclass W:\n    pass\nw = W()\nw.cells = Sink()\nfunctools.update_wrapper(w, final_answer, assigned=(), updated=('__closure__',))";
    expect((await attack(update)).error).toEqual(
      refused("SandboxError", forbiddenAttribute("__closure__"), 8, lastLine(update)),
    );
    const wraps = "import functools\nfunctools.wraps(final_answer, assigned=('__closure__',))";
    expect((await attack(wraps)).error).toEqual(
      refused("SandboxError", forbiddenAttribute("__closure__"), 2, lastLine(wraps)),
    );
    // The defaults still work.
    const plain =
      "import functools\ndef outer(f):\n    @functools.wraps(f)\n    def inner(*a):\n        return f(*a)\n    return inner\n@outer\ndef named(x):\n    return x\nnamed.__name__ + str(named(3))";
    expect((await attack(plain)).output).toBe("named3");
  });

  it("refuses a dataclass whose __annotate__ returns source as a field name", async () => {
    const inBody =
      "import dataclasses\nclass P:\n    def __annotate__(format):\n        return {'x if 0 else __import__': int}\ndataclasses.dataclass(P)";
    expect((await attack(inBody)).error).toEqual(
      refused(
        "SandboxError",
        "defining '__annotate__' is not allowed in this sandbox",
        3,
        "    def __annotate__(format):",
      ),
    );
    const viaType =
      "import dataclasses\nP = type('P', (), {'__annotate__': lambda format: {'x if 0 else __import__': int}})\nD = dataclasses.dataclass(P)\nD(1) == D(1)";
    expect((await attack(viaType)).error).toEqual(
      refused(
        "TypeError",
        "dataclass field names must be identifiers, not 'x if 0 else __import__'",
        3,
        "D = dataclasses.dataclass(P)",
      ),
    );
    const fine =
      "import dataclasses\n@dataclasses.dataclass(frozen=True)\nclass Q:\n    x: int\n    y: list = dataclasses.field(default_factory=list)\n(Q(1) == Q(1), repr(Q(2)))";
    expect((await attack(fine)).output).toEqual([true, "Q(x=2, y=[])"]);
  });
});

describe("routes to JavaScript and the harness's state", () => {
  it("has no closure, cell or frame to read on time.sleep, final_answer or a tool", async () => {
    for (const [code, attribute] of [
      ["import time\ntime.sleep.__closure__", "__closure__"],
      ["getattr(final_answer, '__closure__')", "__closure__"],
      ["add.__globals__", "__globals__"],
      ["final_answer.cell_contents", "cell_contents"],
      ["import operator\noperator.attrgetter('__defaults__')(add)", "__defaults__"],
    ] as const) {
      const result = await attack(code);
      expect(result.error).toEqual(
        refused("SandboxError", forbiddenAttribute(attribute), code.split("\n").length, lastLine(code)),
      );
    }
  });

  it("refuses every JS module, even with '*'", async () => {
    for (const module of [
      "pyodide_js._api",
      "pyodide_js",
      "js",
      "pyodide.ffi",
      "_pyodide_core",
      "_pyodide._base",
    ]) {
      const code = `import ${module}`;
      const result = await attack(code, wildcard);
      expect(result.error).toEqual(refused("ImportError", outside(module), 1, code));
    }
  });

  it("refuses the import machinery with '*' (module_from_spec would hand out the raw builtins)", async () => {
    for (const module of [
      "_frozen_importlib",
      "_frozen_importlib_external",
      "_imp",
      "importlib._bootstrap",
      "zipimport",
      "__main__",
    ]) {
      const code = `import ${module} as m`;
      expect((await attack(code, wildcard)).error).toEqual(refused("ImportError", outside(module), 1, code));
    }
  });

  it("refuses opening a path that leaves /lib/ through '..'", async () => {
    const code = "import zipfile\nzipfile.ZipFile('/lib/../dev/urandom')";
    const result = await attack(code, wildcard);
    expect(result.error).toMatchObject({
      kind: "runtime",
      name: "PermissionError",
      message: "files are not available in this sandbox (tried to open '/lib/../dev/urandom')",
      line: 2,
    });
  });
});

describe("final_answer and tools cannot be rebound", () => {
  it.each([
    ["a match capture pattern", "match 1:\n    case final_answer:\n        pass", rebound("final_answer"), 2],
    ["a match star pattern", "match [1, 2]:\n    case [*add]:\n        pass", rebound("add"), 2],
    [
      "a match mapping rest",
      "match {'a': 1}:\n    case {**final_answer}:\n        pass",
      rebound("final_answer"),
      2,
    ],
    ["a match as pattern", "match 1:\n    case int() as add:\n        pass", rebound("add"), 2],
    ["except ... as", "try:\n    1 / 0\nexcept Exception as add:\n    pass", rebound("add"), 3],
    ["import ... as", "import json as final_answer", rebound("final_answer"), 1],
    ["from ... import ... as", "from json import dumps as add", rebound("add"), 1],
    ["a for target", "for final_answer in [1]:\n    pass", assigned("final_answer"), 1],
    ["a walrus", "(add := 3)", assigned("add"), 1],
    ["a comprehension target", "[1 for final_answer in [1]]", assigned("final_answer"), 1],
    [
      "a with target",
      "class C:\n    def __enter__(self):\n        return 1\n    def __exit__(self, *a):\n        pass\nwith C() as add:\n    pass",
      assigned("add"),
      6,
    ],
    ["global", "def f():\n    global final_answer\n    final_answer = 1", rebound("final_answer"), 2],
    ["nonlocal", "def f():\n    def g():\n        nonlocal add", rebound("add"), 3],
    ["a type alias", "type final_answer = int", assigned("final_answer"), 1],
    ["a type parameter", "def f[add](): pass", rebound("add"), 1],
    ["a class", "class final_answer: pass", rebound("final_answer"), 1],
    ["a function", "async def add(): pass", rebound("add"), 1],
    ["del", "del final_answer", assigned("final_answer"), 1],
  ])("refuses %s", async (_what, code, message, line) => {
    expect((await attack(code)).error).toEqual(
      refused("SandboxError", message, line, code.split("\n")[line - 1]),
    );
  });

  it("still counts tool calls after a match statement (the tool was not rebound)", async () => {
    const code = "match 2:\n    case 1:\n        pass\n    case other:\n        pass\nadd(a=1, b=other)";
    const result = await attack(code);
    expect(result.output).toBe(3);
    expect(toolCalls.filter((event) => event.type === "tool-call")).toHaveLength(1);
  });
});

describe("forged signals", () => {
  it("reports ToolError raised by the code as a runtime error, a real tool failure as a tool error", async () => {
    expect((await attack("raise ToolError('forged')")).error).toEqual(
      refused("ToolError", "forged", 1, "raise ToolError('forged')"),
    );
    expect((await attack("refuse()")).error).toEqual({
      kind: "tool",
      name: "ToolError",
      message: 'Tool "refuse" failed: not today',
      line: 1,
      lineText: "refuse()",
    });
  });

  it("reports KeyboardInterrupt raised by the code as its error, not a timeout", async () => {
    expect((await attack("raise KeyboardInterrupt")).error).toEqual(
      refused(
        "KeyboardInterrupt",
        "the code raised KeyboardInterrupt itself; only the time limit or an abort interrupts a step",
        1,
        "raise KeyboardInterrupt",
      ),
    );
  });

  it("refuses a tool call from __del__ after its step ended, and from the garbage collector in a later step", async () => {
    // Control: a finalizer the step's own code triggers may call a tool.
    const inStep = await attack("class D:\n    def __del__(self):\n        add(a=1, b=2)\nd = D()\ndel d");
    expect(inStep.error).toBeUndefined();
    expect(toolCalls.filter((event) => event.type === "tool-call")).toHaveLength(1);
    const afterStep = await attack("class D:\n    def __del__(self):\n        add(a=1, b=2)\nD()");
    expect(afterStep.error).toBeUndefined();
    expect(toolCalls).toHaveLength(0);
    expect(
      (await attack("class C:\n    def __del__(self):\n        add(a=1, b=2)\nc = C()\nc.me = c\ndel c"))
        .error,
    ).toBeUndefined();
    // A later, innocent step whose allocations trigger a collection.
    const later = await attack("junk = [[i] for i in range(200000)]\ndel junk\nlen('ok')");
    expect(later.output).toBe(2);
    expect(toolCalls).toHaveLength(0);
  });
});

describe("failed final answers", () => {
  it.each([
    [
      "one whose __repr__ raises",
      "class A:\n    def __repr__(self):\n        raise ValueError('boom')\nfinal_answer(A())",
      {
        kind: "runtime",
        name: "FinalAnswerError",
        message: "final_answer() could not send its answer: turning it into JSON raised ValueError: boom",
      },
    ],
    [
      "one too large",
      "final_answer('x' * 6_000_000)",
      {
        kind: "output-limit",
        name: "OutputLimitError",
        message:
          "final_answer() could not send its answer: the final answer is 6000002 characters of JSON; the limit is 5000000. Return less, or a summary.",
      },
    ],
    [
      "one too deep",
      "x = []\nfor _ in range(100000):\n    x = [x]\nfinal_answer(x)",
      {
        kind: "output-limit",
        name: "OutputLimitError",
        message:
          "final_answer() could not send its answer: it is nested more than 100 levels deep. Return less, or a summary.",
      },
    ],
  ])("reports %s as an error, not as an empty final answer", async (_what, code, error) => {
    const result = await attack(code);
    expect(result.isFinalAnswer).toBe(false);
    expect(result.output).toBeUndefined();
    expect(result.error).toEqual(error);
  });
});

describe("guest code run by the harness stays guarded", () => {
  it("runs an error's __str__ under the audit hook", async () => {
    const code =
      "import typing\nclass E(Exception):\n    def __str__(self):\n        return str(typing.ForwardRef('getattr').evaluate())\nraise E()";
    expect((await attack(code)).error).toEqual(
      refused(
        "E",
        "(the error's message could not be read: its __str__ raised SandboxError)",
        5,
        "raise E()",
      ),
    );
  });

  it("runs the last value's __repr__ under the audit hook", async () => {
    const code =
      "import typing\nclass A:\n    def __repr__(self):\n        return str(typing.ForwardRef('getattr').evaluate())\nA()";
    expect((await attack(code)).error).toEqual(
      refused(
        "SandboxError",
        `the value of the last expression could not be turned into JSON: ${EVALUATION}`,
      ),
    );
  });
});

describe("deep structures give RecursionError, not a crashed worker", () => {
  // Each structure gets names of its own and stays alive: freeing one this deep crashes the
  // worker (see the last test).
  const deep = (name: string, expression: string) =>
    `import json\n${name}x = []\n${name}y = []\nfor _ in range(100000):\n    ${name}x = [${name}x]\n    ${name}y = [${name}y]\n${expression}`;
  it.each([
    ["repr", deep("r", "repr(rx)"), "Stack overflow (used 112 kB) while getting the repr of an object", 7],
    [
      "json.dumps",
      deep("j", "json.dumps(jx)"),
      "Stack overflow (used 112 kB) while encoding a JSON object",
      7,
    ],
    ["==", deep("e", "ex == ey"), "Stack overflow (used 112 kB) in comparison", 7],
    [
      "a recursive __repr__",
      "class A:\n    def __repr__(self):\n        return repr(self.x)\nchain = A()\nchain.x = 1\nfor _ in range(100000):\n    link = A()\n    link.x = chain\n    chain = link\nrepr(chain)",
      "Stack overflow (used 112 kB)",
      3,
    ],
  ])("%s of a 100,000-deep structure", async (_what, code, message, line) => {
    const result = await attack(code);
    expect(result.error).toEqual(refused("RecursionError", message, line, code.split("\n")[line - 1]));
  });

  it("refuses a 20,000-term sum before the parser overflows", async () => {
    const code = Array(20_000).fill("1").join("+");
    const result = await attack(code);
    expect(result.error).toEqual({
      kind: "syntax",
      name: "RecursionError",
      message:
        "this statement has more than 5000 operators, too deeply nested to compile; split it into several statements",
      line: 1,
      lineText: code,
    });
  });

  it("refuses a 20,000-term string that stdlib code would compile for the guest", async () => {
    const code = "import typing\ntyping.List['+'.join(['1'] * 20000)]";
    expect((await attack(code)).error).toEqual(
      refused(
        "SandboxError",
        "source with more than 5000 operators in one statement is not compiled in this sandbox",
        2,
        lastLine(code),
      ),
    );
  });

  it("keeps Python recursion at CPython's default limit", async () => {
    const code = "def g(n):\n    return g(n + 1) if n < 900 else n\ng(0)";
    expect((await attack(code)).output).toBe(900);
  });

  it("still crashes the worker when a 30,000-deep list is freed (known, see README); the host lives on", async () => {
    // CPython's list deallocation recurses without touching the shadow stack its check
    // measures, so V8's stack overflows first. The executor reports it and starts a new worker.
    const result = await executor.run("x = []\nfor _ in range(30000):\n    x = [x]\ndel x");
    expect(result.error).toEqual({
      kind: "crashed",
      name: "SandboxCrashError",
      message:
        "The sandbox crashed (the Python sandbox worker exited: RangeError: Maximum call stack size exceeded) and was restarted; every variable is lost",
      stateLost: true,
    });
    expect(process.exitCode).toBeUndefined();
    expect((await executor.run("1 + 1")).output).toBe(2);
    expect((await executor.run("add(a=2, b=3)")).output).toBe(5);
    expect((await executor.run("canary = 'alive'")).error).toBeUndefined();
  }, 60_000);
});

describe("ordinary model code still runs under the guards", () => {
  it("dataclasses, enum, namedtuples, typing.NamedTuple with a string annotation, decorators, type parameters", async () => {
    const code =
      "import dataclasses, enum, collections, typing, functools, statistics, datetime, re, time, json, decimal, fractions, itertools, copy\nfrom typing import List, Optional, Dict, NamedTuple, TypedDict\n@dataclasses.dataclass(order=True)\nclass P:\n    x: int\n    tags: List[str] = dataclasses.field(default_factory=list)\n    note: Optional[str] = None\nclass Color(enum.Enum):\n    RED = 1\nN = collections.namedtuple('N', 'a b')\nclass T(NamedTuple):\n    a: int\n    b: 'str' = 'x'\nclass TD(TypedDict):\n    a: int\n@functools.lru_cache(maxsize=None)\ndef fib(n: int) -> int:\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\ndef deco(f):\n    @functools.wraps(f)\n    def w(*a, **k):\n        return f(*a, **k)\n    return w\n@deco\ndef hello(name: str) -> str:\n    return 'hi ' + name\ntime.sleep(0.01)\ntype Alias = list[int]\ndef first[T](xs: list[T]) -> T:\n    return xs[0]\nclass Base:\n    def __init_subclass__(cls, **kw):\n        cls.seen = True\nclass Sub(Base):\n    pass\ntry:\n    {}['k']\nexcept KeyError as e:\n    err = repr(e)\nr = [dataclasses.asdict(P(1, ['a'])), Color.RED.name, N(1, 2), T(1), fib(30), hello('bob'), statistics.median([3, 1, 2]),\n     datetime.datetime.strptime('2024-01-02', '%Y-%m-%d').isoformat(), re.findall(r'\\d+', 'a1b22'), err,\n     str(decimal.Decimal('1.1') + 1), str(fractions.Fraction(1, 3)), list(itertools.islice(itertools.count(), 3)),\n     copy.deepcopy(P(2)) == P(2), sorted([P(2), P(1)])[0].x, first([9]), P.__doc__, dataclasses.fields(P)[1].type == List[str]]\nprint(json.dumps({'ok': True}))\nr";
    const result = await attack(code);
    expect(result.error).toBeUndefined();
    expect(result.logs).toBe('{"ok": true}\n');
    expect(result.output).toEqual([
      { x: 1, tags: ["a"], note: null },
      "RED",
      [1, 2],
      [1, "x"],
      832040,
      "hi bob",
      2,
      "2024-01-02T00:00:00",
      ["1", "22"],
      "KeyError('k')",
      "2.1",
      "1/3",
      [0, 1, 2],
      true,
      1,
      9,
      "P(x: int, tags: List[str] = <factory>, note: str | None = None)",
      true,
    ]);
  });
});
