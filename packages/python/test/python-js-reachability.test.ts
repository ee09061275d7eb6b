// No JavaScript object is reachable from Python once the worker has forgotten Pyodide's JS
// modules (src/worker/forget-js-modules.ts): a walk of gc referents from sys.modules and sys
// finds no JsProxy, no JS-made class and no Pyodide module. A single JsProxy leads to
// `Function`, i.e. JavaScript in the worker (the audit reached it through time.sleep's closure
// and sys.modules['pyodide_js._api']).
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { loadPyodide } from "pyodide";
import { expect, it } from "vitest";
import { HARNESS_FILENAME, pythonHarness } from "../src/harness/harness-file.js";
import { FORGET_JS_MODULES } from "../src/worker/forget-js-modules.js";

const WALK = `
import gc, sys
roots = ("js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core")
def js_like(value):
    kind = type(value)
    if kind.__name__.startswith("Js") or "JsProxy" in type(kind).__name__:
        return True
    if getattr(kind, "__module__", "").partition(".")[0] in roots:
        return True
    return isinstance(value, type(sys)) and value.__name__.partition(".")[0] in roots
seen = {id(sys.modules), id(sys.__dict__)}
stack = [sys.modules, sys.__dict__]
found = []
while stack:
    value = stack.pop()
    if js_like(value):
        found.append(repr(value)[:80])
        continue
    for referent in gc.get_referents(value):
        if id(referent) not in seen:
            seen.add(id(referent))
            stack.append(referent)
[len(seen), found]
`;

it("leaves no JavaScript object reachable from sys.modules, and hardens the stdlib", async () => {
  const indexURL = `${dirname(createRequire(import.meta.url).resolve("pyodide/package.json"))}/`;
  const pyodide = await loadPyodide({ indexURL, stdout: () => undefined, stderr: () => undefined });
  // The modules the worker preloads (and the harness imports), so their references are walked.
  pyodide.runPython(
    "import ast, json, re, types, operator, collections, datetime, math, random, dataclasses, typing, enum, functools, itertools, statistics, string, decimal, fractions, annotationlib, inspect, keyword, posixpath, signal, tokenize, zipimport, time, asyncio, shutil",
  );
  const before = (pyodide.runPython(WALK) as { toJs(): [number, string[]] }).toJs();
  expect(before[1].length).toBeGreaterThan(0);
  pyodide.unregisterJsModule("js");
  pyodide.unregisterJsModule("pyodide_js");
  pyodide.runPython(FORGET_JS_MODULES, { globals: (pyodide.globals.get("dict") as () => never)() });
  const [walked, found] = (pyodide.runPython(WALK) as { toJs(): [number, string[]] }).toJs();
  expect(found).toEqual([]);
  expect(walked).toBeGreaterThan(10_000);

  // The harness's stdlib hardening, seen from outside the guards (as code past them would see
  // it): CPython raises no audit event for sys.setrecursionlimit, so it is replaced.
  const harness = (pyodide.globals.get("dict") as () => { get(name: string): unknown })();
  pyodide.runPython(pythonHarness(), { globals: harness as never, filename: HARNESS_FILENAME });
  pyodide.runPython("_harden_stdlib()", { globals: harness as never });
  const outcome = (code: string) =>
    pyodide.runPython(
      `try:\n    ${code}\n    outcome = 'allowed'\nexcept Exception as error:\n    outcome = type(error).__name__ + ': ' + str(error)\noutcome`,
      { globals: harness as never },
    );
  expect(outcome("_sys.setrecursionlimit(100000)")).toBe(
    "SandboxError: sys.setrecursionlimit is not available in this sandbox",
  );
  expect(outcome("_typing.ForwardRef('getattr').evaluate()")).toBe(
    "SandboxError: evaluating type annotations (typing.get_type_hints, ForwardRef.evaluate) is not available in this sandbox; use the annotations as written",
  );
}, 120_000);
