/**
 * The Python half of the sandbox, run once in each interpreter (see python-worker.ts) under the
 * file name `<atrium-harness>`. It defines `make_harness(host, config_json)`, which returns the
 * entry points the worker calls: `run_step`, `set_tools`, `set_variables`, `reset`.
 *
 * Guest code never sees this module's globals: every path to them (dunder attributes, frames,
 * `sys`, `gc`, the import system) is closed by three layers that must all fail for an escape:
 * 1. a static check of each step's syntax tree (no dunder attributes or names, no frame
 *    attributes, imports only from the allow-list);
 * 2. the guest's own builtins (no eval/exec/open/globals/vars, a guarded getattr and
 *    `__import__`), with imported modules handed out as read-only views of their public names;
 * 3. an audit hook (PEP 578: it cannot be removed once added) that, while guest code runs, refuses
 *    process and network events, reading frames or code, writing files, importing the JS bridge,
 *    and compiling source that fails the check of layer 1 (e.g. `typing.get_type_hints`
 *    evaluating an annotation string).
 * Kept as a TypeScript string so the build ships it without a copy step; written without
 * backticks or "${" so the template needs no escapes.
 */
export const HARNESS_FILENAME = "<atrium-harness>";

export const HARNESS_SOURCE = String.raw`
import ast as _ast
import builtins as _builtins
import json as _json
import sys as _sys
import types as _types

# Modules no configuration may authorize: they lead out of the sandbox (the JS bridge, the
# host's processes or network) or into the machinery that guards it.
_BLOCKED_ROOTS = frozenset({
    "js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core", "pyodide_http", "micropip",
    "ctypes", "_ctypes", "subprocess", "_posixsubprocess", "multiprocessing", "_multiprocessing",
    "socket", "_socket", "ssl", "_ssl", "select", "selectors", "os", "posix", "nt", "sys",
    "builtins", "importlib", "_imp", "zipimport", "gc", "inspect", "code", "codeop", "pdb",
    "bdb", "pickle", "_pickle", "marshal", "shelve", "types", "threading", "_thread", "signal",
    "faulthandler", "tracemalloc", "sysconfig", "site", "runpy", "pkgutil", "io", "_io",
    "pathlib", "shutil", "tempfile", "asyncio", "webbrowser", "urllib", "http", "ftplib",
    "smtplib", "telnetlib", "mmap", "resource", "_testcapi", "_testinternalcapi", "atexit",
    "traceback", "annotationlib", "_weakref", "weakref", "ast", "_ast", "dis", "opcode",
})

# Dunder attributes guest code may use: they lead to names, documentation and the object's own
# protocol methods, never to globals, closures, code, frames or the class hierarchy's subclasses.
_SAFE_DUNDERS = frozenset({
    "__init__", "__name__", "__qualname__", "__doc__", "__class__", "__module__", "__len__",
    "__str__", "__repr__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
    "__hash__", "__iter__", "__next__", "__contains__", "__getitem__", "__setitem__",
    "__delitem__", "__add__", "__sub__", "__mul__", "__truediv__", "__enter__", "__exit__",
    "__call__", "__bool__", "__post_init__", "__version__", "__all__",
})

# Attributes without underscores that still lead to frames, code or other modules' globals.
_FRAME_ATTRS = frozenset({
    "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await", "cr_origin",
    "ag_frame", "ag_code", "ag_await", "f_back", "f_builtins", "f_code", "f_globals",
    "f_locals", "f_trace", "tb_frame", "tb_next", "func_globals", "func_code",
})

_SAFE_DUNDER_NAMES = frozenset({"__name__"})

# Events refused while guest code runs, whoever raises them.
_DENIED_EVENTS = frozenset({
    "os.system", "os.fork", "os.forkpty", "os.kill", "os.killpg", "os.startfile",
    "os.posix_spawn", "os.posix_spawnp", "subprocess.Popen", "pty.spawn", "sys.addaudithook",
    "sys.settrace", "sys.setprofile", "sys._current_frames", "sys.setrecursionlimit",
    "gc.get_objects", "gc.get_referrers", "gc.get_referents", "builtins.input",
    "code.__new__", "function.__new__", "marshal.loads", "marshal.load", "pickle.find_class",
    "webbrowser.open", "urllib.Request", "http.client.connect", "ftplib.connect",
    "smtplib.connect", "mmap.__new__", "cpython.run_command", "cpython.run_file",
    "cpython.run_module", "cpython.run_startup", "cpython.run_interactivehook",
    "sys.monitoring.register_callback",
})
_DENIED_PREFIXES = ("os.exec", "os.spawn", "ctypes.", "socket.", "subprocess.", "_winapi.")

# Callers trusted to compile source without the guest check: the import system loading stdlib
# modules from /lib (the guest cannot write files there, or anywhere), and stdlib code that
# generates methods (dataclasses, namedtuple), whose names are dunders by design.
_TRUSTED_COMPILERS = (
    "<frozen importlib._bootstrap>", "<frozen importlib._bootstrap_external>", "<frozen zipimport>",
    "/dataclasses.py",
    "/collections/__init__.py",
    "<atrium-harness>",
)


class SandboxError(Exception):
    """An operation this sandbox does not allow."""


class ToolError(Exception):
    """A tool failed; the message says why."""


class _FinalAnswer(BaseException):
    pass


class _OutputLimit(BaseException):
    pass


def _forbidden_attr(name):
    if name in _FRAME_ATTRS:
        return True
    return name.startswith("__") and name.endswith("__") and name not in _SAFE_DUNDERS


def _forbidden_name(name):
    return name.startswith("__") and name.endswith("__") and name not in _SAFE_DUNDER_NAMES


class _Checker(_ast.NodeVisitor):
    """Finds the first construct guest code may not use; 'reserved' names may not be rebound."""

    def __init__(self, reserved, authorized):
        self.reserved = reserved
        self.authorized = authorized
        self.problem = None

    def fail(self, node, message, name="SandboxError"):
        if self.problem is None:
            self.problem = (getattr(node, "lineno", None), name, message)

    def visit_Attribute(self, node):
        if _forbidden_attr(node.attr):
            self.fail(node, "access to attribute '%s' is not allowed in this sandbox" % node.attr)
        self.generic_visit(node)

    def visit_Name(self, node):
        if _forbidden_name(node.id):
            self.fail(node, "the name '%s' is not available in this sandbox" % node.id)
        elif not isinstance(node.ctx, _ast.Load) and node.id in self.reserved:
            self.fail(node, "'%s' is built in and cannot be assigned; choose another name" % node.id)
        self.generic_visit(node)

    def _check_binding(self, node, name):
        if name in self.reserved:
            self.fail(node, "'%s' is built in and cannot be redefined; choose another name" % name)
        elif _forbidden_name(name):
            self.fail(node, "the name '%s' is not available in this sandbox" % name)

    def visit_FunctionDef(self, node):
        if not node.name.startswith("__"):
            self._check_binding(node, node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self._check_binding(node, node.name)
        self.generic_visit(node)

    def visit_Import(self, node):
        for alias in node.names:
            self._check_import(node, alias.name)
            self._check_binding(node, alias.asname or alias.name.partition(".")[0])

    def visit_ImportFrom(self, node):
        if node.level:
            self.fail(node, "relative imports are not available in this sandbox", "ImportError")
            return
        self._check_import(node, node.module or "")
        for alias in node.names:
            if alias.name == "*":
                self.fail(node, "'from %s import *' is not available in this sandbox; import the names you need" % node.module)
            elif alias.name.startswith("_"):
                self.fail(node, "'%s' is private to %s and cannot be imported" % (alias.name, node.module))
            else:
                self._check_binding(node, alias.asname or alias.name)

    def _check_import(self, node, module):
        if self.authorized is not None and not _is_authorized(module, self.authorized):
            self.fail(node, _import_refusal(module, self.authorized), "ImportError")

    def visit_MatchClass(self, node):
        for attr in node.kwd_attrs:
            if _forbidden_attr(attr):
                self.fail(node, "access to attribute '%s' is not allowed in this sandbox" % attr)
        self.generic_visit(node)

    def visit_Global(self, node):
        for name in node.names:
            self._check_binding(node, name)


def _check_tree(tree, reserved=frozenset(), authorized=None):
    checker = _Checker(reserved, authorized)
    checker.visit(tree)
    return checker.problem


def _is_authorized(module, authorized):
    if not module or module.partition(".")[0] in _BLOCKED_ROOTS:
        return False
    if "*" in authorized:
        return True
    parts = module.split(".")
    for end in range(1, len(parts) + 1):
        prefix = ".".join(parts[:end])
        if prefix in authorized or (prefix + ".*") in authorized:
            return True
    return False


def _import_refusal(module, authorized):
    if module.partition(".")[0] in _BLOCKED_ROOTS:
        return "Import of %s is not allowed: it reaches outside the sandbox. Authorized imports are: %s" % (module, sorted(authorized))
    return "Import of %s is not allowed. Authorized imports are: %s" % (module, sorted(authorized))


def make_harness(host, config_json):
    config = _json.loads(config_json)
    authorized = frozenset(config["authorizedImports"])
    limits = config["limits"]
    call_host_tool = host.callTool
    host_sleep = host.sleep
    real_getattr = _builtins.getattr
    real_hasattr = _builtins.hasattr
    real_setattr = _builtins.setattr
    real_delattr = _builtins.delattr
    real_import = _builtins.__import__
    ModuleType = _types.ModuleType

    # ── one step's state ──────────────────────────────────────────────────────────────────
    class Step:
        __slots__ = ("logs", "printed", "final", "final_json", "flood", "guarded", "tool_calls")

        def __init__(self):
            self.logs = []
            self.printed = 0
            self.final = False
            self.final_json = None
            self.flood = False
            self.guarded = False
            self.tool_calls = 0

    state = {"step": Step(), "tools": frozenset(), "hook": False}

    # ── the audit hook: refuses what the static check cannot see ──────────────────────────
    def caller_file(depth):
        try:
            return _sys._getframe(depth).f_code.co_filename
        except ValueError:
            return ""

    def audit(event, args):
        step = state["step"]
        if not step.guarded or state["hook"]:
            return
        state["hook"] = True
        try:
            audit_guest(event, args)
        finally:
            state["hook"] = False

    def audit_guest(event, args):
        if event in _DENIED_EVENTS or event.startswith(_DENIED_PREFIXES):
            raise SandboxError("%s is not allowed in this sandbox" % event)
        if event == "object.__getattr__":
            # Stdlib code reads code objects for its own work (inspect.signature under
            # dataclasses); guest code, or C code called directly by it, may not.
            if not caller_file(3).startswith("/lib/"):
                raise SandboxError("access to attribute '%s' is not allowed in this sandbox" % args[1])
        elif event == "import":
            if args[0].partition(".")[0] in _BLOCKED_ROOTS:
                raise ImportError(_import_refusal(args[0], authorized))
        elif event == "open":
            path, mode = args[0], args[1]
            writes = not isinstance(mode, str) or any(flag in mode for flag in "wax+")
            if writes or not isinstance(path, str) or not path.startswith("/lib/"):
                raise PermissionError("files are not available in this sandbox (tried to open %r)" % (path,))
        elif event == "compile":
            source = args[0]
            if isinstance(source, (str, bytes)) and not caller_file(3).endswith(_TRUSTED_COMPILERS):
                tree = _ast.parse(source)
                problem = _check_tree(tree)
                if problem:
                    raise SandboxError(problem[2])

    _sys.addaudithook(audit)

    # ── what guest code sees ──────────────────────────────────────────────────────────────
    views = {}

    def check_attr_name(name):
        if not isinstance(name, str):
            raise TypeError("attribute name must be a string, not %s" % type(name).__name__)
        if _forbidden_attr(name):
            raise SandboxError("access to attribute '%s' is not allowed in this sandbox" % name)

    def module_attr(module, name):
        if name.startswith("_") and name not in ("__name__", "__doc__", "__all__", "__version__"):
            raise AttributeError("module '%s' has no public attribute '%s'" % (module.__name__, name))
        value = real_getattr(module, name)
        if isinstance(value, ModuleType):
            if not _is_authorized(value.__name__, authorized):
                raise AttributeError("module '%s' attribute '%s' is the module %s, which is not an authorized import" % (module.__name__, name, value.__name__))
            return view_of(value)
        replaced = REPLACED.get((module.__name__, name))
        if replaced is not None:
            return replaced
        return value

    def view_of(module):
        view = views.get(module.__name__)
        if view is not None:
            return view
        name = module.__name__

        class module_view:
            __slots__ = ()

            def __getattribute__(self, attr):
                return module_attr(module, attr)

            def __setattr__(self, attr, value):
                raise AttributeError("module '%s' is read-only in this sandbox" % name)

            def __delattr__(self, attr):
                raise AttributeError("module '%s' is read-only in this sandbox" % name)

            def __repr__(self):
                return "<module '%s'>" % name

            def __dir__(self):
                return [attr for attr in dir(module) if not attr.startswith("_")]

        module_view.__name__ = module_view.__qualname__ = "module"
        view = module_view()
        views[name] = view
        return view

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level:
            raise ImportError("relative imports are not available in this sandbox")
        if not _is_authorized(name, authorized):
            # Import statements were checked before the step ran, so an unauthorized name here
            # comes from C code of an allowed module (datetime.strptime imports _strptime):
            # its private helper modules are let through, as the modules themselves.
            if name.startswith("_") and name.partition(".")[0] not in _BLOCKED_ROOTS:
                return real_import(name, None, None, fromlist, 0)
            raise ImportError(_import_refusal(name, authorized))
        module = real_import(name, None, None, fromlist, 0)
        return view_of(module)

    def guarded_getattr(obj, name, *default):
        check_attr_name(name)
        if isinstance(obj, ModuleType):
            try:
                return module_attr(obj, name)
            except AttributeError:
                if default:
                    return default[0]
                raise
        return real_getattr(obj, name, *default)

    def guarded_hasattr(obj, name):
        check_attr_name(name)
        return real_hasattr(obj, name)

    def guarded_setattr(obj, name, value):
        check_attr_name(name)
        return real_setattr(obj, name, value)

    def guarded_delattr(obj, name):
        check_attr_name(name)
        return real_delattr(obj, name)

    import operator as _operator

    def attrgetter(*names):
        for dotted in names:
            for part in dotted.split("."):
                check_attr_name(part)
        return _operator.attrgetter(*names)

    def methodcaller(name, *args, **kwargs):
        check_attr_name(name)
        return _operator.methodcaller(name, *args, **kwargs)

    def refused(what):
        def refuse(*args, **kwargs):
            raise SandboxError("%s is not available in this sandbox" % what)
        return refuse

    def sleep(seconds):
        """time.sleep that an interrupt (a time limit, an abort) ends at once."""
        seconds = float(seconds)
        if seconds < 0:
            raise ValueError("sleep length must be non-negative")
        if host_sleep(seconds * 1000.0):
            raise KeyboardInterrupt()

    REPLACED = {
        # Pyodide's own sleep spins in wasm without looking at the interrupt word.
        ("time", "sleep"): sleep,
        ("operator", "attrgetter"): attrgetter,
        ("operator", "methodcaller"): methodcaller,
        # Formatter.get_field resolves "0.__globals__" to the object itself.
        ("string", "Formatter"): refused("string.Formatter"),
    }

    def emit(text):
        step = state["step"]
        step.printed += len(text)
        if step.printed > limits["maxPrintedChars"]:
            step.flood = True
            raise _OutputLimit()
        step.logs.append(text)

    def guest_print(*args, sep=" ", end="\n", file=None, flush=False):
        if sep is None:
            sep = " "
        if end is None:
            end = "\n"
        emit(str(sep).join(str(arg) for arg in args) + str(end))

    class Capture:
        """sys.stdout and sys.stderr: stdlib code that writes there lands in the logs."""

        def write(self, text):
            emit(str(text))
            return len(text)

        def flush(self):
            pass

    _sys.stdout = _sys.stderr = Capture()

    def final_answer(answer=None):
        step = state["step"]
        step.final = True
        step.final_json = to_json(answer, "the final answer")
        raise _FinalAnswer()

    REMOVED = ("eval", "exec", "compile", "open", "input", "breakpoint", "help", "exit", "quit",
               "globals", "locals", "vars", "memoryview", "__loader__", "__spec__", "copyright",
               "credits", "license")
    base = {name: value for name, value in _builtins.__dict__.items() if name not in REMOVED}
    base.update(
        __import__=guarded_import,
        getattr=guarded_getattr,
        hasattr=guarded_hasattr,
        setattr=guarded_setattr,
        delattr=guarded_delattr,
        print=guest_print,
        final_answer=final_answer,
        ToolError=ToolError,
        SandboxError=SandboxError,
    )
    builtin_names = frozenset(("final_answer", "ToolError", "SandboxError"))
    guest_builtins = dict(base)
    namespace = {}

    def new_namespace():
        namespace.clear()
        namespace.update(__name__="__main__", __builtins__=guest_builtins)

    new_namespace()

    # ── values crossing to the host ───────────────────────────────────────────────────────
    def plain(value, depth=0):
        if depth > 100:
            raise ValueError("it is nested more than 100 levels deep")
        if value is None or isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, float):
            return value if value == value and value not in (float("inf"), float("-inf")) else None
        if isinstance(value, (list, tuple)):
            return [plain(item, depth + 1) for item in value]
        if isinstance(value, dict):
            return {str(key): plain(item, depth + 1) for key, item in value.items()}
        if isinstance(value, (set, frozenset)):
            return [plain(item, depth + 1) for item in value]
        return repr(value)

    def to_json(value, what):
        if value is None:
            return None
        text = _json.dumps(plain(value), ensure_ascii=False)
        if len(text) > limits["maxTransferChars"]:
            raise ValueError("%s is %d characters of JSON; the limit is %d" % (what, len(text), limits["maxTransferChars"]))
        return text

    # ── tools ─────────────────────────────────────────────────────────────────────────────
    def call_tool(name, arguments):
        step = state["step"]
        step.tool_calls += 1
        if step.tool_calls > limits["maxToolCalls"]:
            raise SandboxError("more than %d tool calls in one step; call tools fewer times per step" % limits["maxToolCalls"])
        try:
            payload = _json.dumps(arguments, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise TypeError("the arguments of %s() must be JSON data (str, int, float, bool, None, list, dict): %s" % (name, error)) from None
        if len(payload) > limits["maxTransferChars"]:
            raise ValueError("the arguments of %s() are %d characters of JSON; the limit is %d" % (name, len(payload), limits["maxTransferChars"]))
        outcome = _json.loads(call_host_tool(name, payload))
        if outcome.get("interrupted"):
            raise KeyboardInterrupt()
        if outcome.get("ok"):
            text = outcome.get("json")
            return None if text is None else _json.loads(text)
        raise ToolError(outcome.get("message", "the tool failed"))

    def make_tool(name, params):
        def tool(*args, **kwargs):
            if len(args) > len(params):
                raise TypeError("%s() takes %d positional arguments (%s) but %d were given" % (name, len(params), ", ".join(params), len(args)))
            for param, value in zip(params, args):
                if param in kwargs:
                    raise TypeError("%s() got multiple values for argument '%s'" % (name, param))
                kwargs[param] = value
            return call_tool(name, kwargs)
        tool.__name__ = tool.__qualname__ = name
        return tool

    def set_tools(tools_json):
        tools = _json.loads(tools_json)
        guest_builtins.clear()
        guest_builtins.update(base)
        for name, params in tools:
            guest_builtins[name] = make_tool(name, params)
        state["tools"] = frozenset(name for name, _ in tools)

    def set_variables(entries_json):
        for name, text in _json.loads(entries_json):
            namespace[name] = None if text is None else _json.loads(text)

    def reset():
        new_namespace()

    # ── one step ──────────────────────────────────────────────────────────────────────────
    def line_of(code_lines, line):
        if line is None or line < 1 or line > len(code_lines):
            return None
        return code_lines[line - 1]

    def failure(kind, name, message, line, code_lines):
        error = {"kind": kind, "name": name, "message": message[: limits["maxErrorChars"]]}
        if line is not None:
            error["line"] = line
            text = line_of(code_lines, line)
            if text is not None:
                error["lineText"] = text
        return error

    def guest_line(tb, filename):
        line = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == filename:
                line = tb.tb_lineno
            tb = tb.tb_next
        return line

    def kind_of(error):
        if isinstance(error, ToolError):
            return "tool"
        if isinstance(error, MemoryError):
            return "memory"
        return "runtime"

    def run_step(run_id, code):
        # An interrupt may land in the harness itself, after the guest code ended.
        try:
            return run_guest(run_id, code)
        except KeyboardInterrupt:
            return finish({"outputJson": None, "isFinalAnswer": False, "interrupted": True}, state["step"])
        except BaseException as error:
            # A fault of the harness itself, reported as a value so the run still ends cleanly.
            state["step"].guarded = False
            message = "the sandbox failed to run this step: %s: %s" % (type(error).__name__, error)
            failed = {"kind": "runtime", "name": "SandboxError", "message": message}
            return finish({"outputJson": None, "isFinalAnswer": False, "interrupted": False, "error": failed}, state["step"])

    def run_guest(run_id, code):
        filename = "<step-%d>" % run_id
        code_lines = code.split("\n")
        step = Step()
        state["step"] = step
        result = {"outputJson": None, "isFinalAnswer": False, "interrupted": False}
        try:
            tree = _ast.parse(code, filename, "exec")
        except SyntaxError as error:
            result["error"] = failure("syntax", "SyntaxError", error.msg or "invalid syntax", error.lineno, code_lines)
            return finish(result, step)
        except (ValueError, MemoryError, RecursionError) as error:
            result["error"] = failure("syntax", type(error).__name__, str(error), None, code_lines)
            return finish(result, step)
        problem = _check_tree(tree, builtin_names | state["tools"], authorized)
        if problem:
            result["error"] = failure("runtime", problem[1], problem[2], problem[0], code_lines)
            return finish(result, step)
        last = None
        if tree.body and isinstance(tree.body[-1], _ast.Expr):
            last = _ast.Expression(tree.body.pop().value)
        try:
            body = compile(tree, filename, "exec")
            tail = compile(last, filename, "eval") if last is not None else None
        except SyntaxError as error:
            result["error"] = failure("syntax", "SyntaxError", error.msg or "invalid syntax", error.lineno, code_lines)
            return finish(result, step)
        value = None
        step.guarded = True
        try:
            exec(body, namespace)
            if tail is not None:
                value = eval(tail, namespace)
        except _FinalAnswer:
            pass
        except _OutputLimit:
            pass
        except KeyboardInterrupt:
            result["interrupted"] = True
        except BaseException as error:
            step.guarded = False
            if not step.final and not step.flood:
                line = guest_line(error.__traceback__, filename)
                message = str(error)
                if isinstance(error, MemoryError) and not message:
                    message = "out of memory: the sandbox may use at most %d MiB (memoryLimitBytes)" % (limits["memoryLimitBytes"] // 1048576)
                result["error"] = failure(kind_of(error), type(error).__name__, message, line, code_lines)
        finally:
            step.guarded = False
        if step.flood:
            result["error"] = {
                "kind": "output-limit",
                "name": "OutputLimitError",
                "message": "The code printed more than %d characters (an output flood) and was stopped; print less, or a summary" % limits["maxPrintedChars"],
            }
        elif step.final:
            result["isFinalAnswer"] = True
            result["outputJson"] = step.final_json
            result.pop("error", None)
        elif "error" not in result and not result["interrupted"] and value is not None:
            try:
                result["outputJson"] = to_json(value, "the value of the last expression")
            except (ValueError, RecursionError) as error:
                result["error"] = failure("output-limit", "OutputLimitError", str(error) + ". Return less, or print a summary.", None, code_lines)
        return finish(result, step)

    def finish(result, step):
        result["logs"] = "".join(step.logs)
        return _json.dumps(result, ensure_ascii=False)

    return {"run_step": run_step, "set_tools": set_tools, "set_variables": set_variables, "reset": reset}
`;
