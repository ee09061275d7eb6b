"""Unit tests of the Pyodide harness's pure parts, run with the host's CPython.

The harness (src/harness/harness.py) is written for Pyodide's CPython 3.14: it imports
annotationlib, which older interpreters lack, and only `make_harness` needs it or the sandbox's
host device. Its module level defines constants and pure functions, so this loads it the way the
worker does (exec under the file name '<atrium-harness>') with a stand-in annotationlib where the
host has none, and checks the static guard (layer 1 of the three) and the parser-depth check.

    python3 harness_checks.py path/to/harness.py
"""

import ast
import sys
import types
import unittest

HARNESS = {}


def load(path):
    if "annotationlib" not in sys.modules:
        try:
            import annotationlib  # noqa: F401  (3.14+)
        except ImportError:
            sys.modules["annotationlib"] = types.ModuleType("annotationlib")
    with open(path, encoding="utf-8") as file:
        source = file.read()
    exec(compile(source, "<atrium-harness>", "exec"), HARNESS)


def problem(code, reserved=frozenset({"final_answer"}), authorized=("math", "json", "xml.*")):
    found = HARNESS["_check_tree"](ast.parse(code), reserved, frozenset(authorized))
    return None if found is None else found[2]


class StaticCheck(unittest.TestCase):
    def test_plain_code_passes(self):
        self.assertIsNone(problem("import math\nx = [math.sqrt(n) for n in range(3)]\nprint(x.__len__())"))

    def test_dunder_attributes_that_lead_out_are_refused(self):
        for code in ("().__class__.__bases__", "f.__globals__", "(lambda: 0).__code__", "x.__subclasses__()"):
            self.assertIn("is not allowed in this sandbox", problem(code), code)

    def test_frame_attributes_are_refused(self):
        for code in ("g.gi_frame", "tb.tb_frame.f_back", "c.cr_frame", "e.__traceback__"):
            self.assertIsNotNone(problem(code), code)

    def test_dunder_names_are_refused(self):
        self.assertEqual(problem("__builtins__"), "the name '__builtins__' is not available in this sandbox")
        self.assertEqual(problem("__import__('os')"), "the name '__import__' is not available in this sandbox")
        self.assertIsNone(problem("__name__"))

    def test_reserved_names_cannot_be_rebound(self):
        self.assertIn("cannot be assigned", problem("final_answer = 1"))
        self.assertIn("cannot be redefined", problem("def final_answer(x):\n    pass"))
        self.assertIn("cannot be redefined", problem("import json as final_answer"))
        self.assertIsNone(problem("final_answer(1)"))

    def test_imports_follow_the_allow_list(self):
        self.assertIsNone(problem("import json\nfrom xml.etree import ElementTree"))
        self.assertIn("Import of csv is not allowed", problem("import csv"))
        self.assertIn("relative imports", problem("from . import x"))
        self.assertIn("import the names you need", problem("from math import *"))
        self.assertIn("is private to math", problem("from math import _x"))

    def test_blocked_modules_stay_blocked_even_under_a_wildcard(self):
        authorize = HARNESS["_is_authorized"]
        for module in ("os", "sys", "js", "pyodide.ffi", "importlib.util", "subprocess", "gc", "ctypes"):
            self.assertFalse(authorize(module, frozenset({"*"})), module)
        self.assertTrue(authorize("csv", frozenset({"*"})))
        self.assertTrue(authorize("xml.dom.minidom", frozenset({"xml.*"})))
        self.assertFalse(authorize("xmlrpc", frozenset({"xml.*"})))
        self.assertIn("reaches outside the sandbox", HARNESS["_import_refusal"]("os.path", frozenset()))


class ParserDepth(unittest.TestCase):
    def test_a_statement_with_too_many_operators_is_found_before_parsing(self):
        deep = HARNESS["_deep_line"]
        chain = "x = " + " + ".join(["1"] * (HARNESS["_MAX_LINE_OPERATORS"] + 2))
        self.assertEqual(deep("a = 1\n" + chain + "\n"), 2)
        self.assertIsNone(deep("a = 1 + 2\nb = [1, 2, 3]\n"))
        self.assertIsNone(deep("x = (\n"))


if __name__ == "__main__":
    load(sys.argv.pop(1))
    unittest.main(verbosity=2)
