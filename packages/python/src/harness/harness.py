# The Python half of the Pyodide sandbox, run once in each interpreter (see
# src/worker/python-worker.ts) under the file name `<atrium-harness>`. The host reads this file
# from the package at run time and hands it to the sandbox as it boots. It defines
# `make_harness(config_json, recursion_limit)`, which returns the entry points the worker calls:
# `run_step`, `set_tools`, `set_variables`, `reset`.
#
# Guest code never sees this module's globals: every path to them (dunder attributes, frames,
# `sys`, `gc`, the import system) is closed by three layers that must all fail for an escape:
# 1. a static check of each step's syntax tree (no dunder attributes or names, no frame
#    attributes, imports only from the allow-list);
# 2. the guest's own builtins (no eval/exec/open/globals/vars, a guarded getattr and
#    `__import__`), with imported modules handed out as read-only views of their public names;
# 3. an audit hook (PEP 578: it cannot be removed once added) that, while guest code runs, refuses
#    process and network events, reading frames or code, writing files, importing the JS bridge,
#    and compiling source that fails the check of layer 1 (e.g. `typing.get_type_hints`
#    evaluating an annotation string).
#
# It needs Pyodide's CPython (3.14: annotationlib) and the sandbox's host device to run;
# test/harness-cpython.test.ts compiles it with the host's python3 and unit-tests its pure parts.
import annotationlib as _annotationlib
import ast as _ast
import builtins as _builtins
import collections as _collections
import dataclasses as _dataclasses
import functools as _functools
import gc as _gc
import json as _json
import keyword as _keyword
import os as _os
import posixpath as _posixpath
import random as _random
import signal as _signal
import sys as _sys
import time as _time
import tokenize as _tokenize
import types as _types
import typing as _typing
import zipimport as _zipimport

# Modules no configuration may authorize, not even "*": they lead out of the sandbox (the JS
# bridge, the host's processes or network), into the machinery that guards it (the import
# system, whose module_from_spec hands out the raw builtins; frames; the garbage collector),
# evaluate names in other modules' globals (annotationlib), are the unchecked C half of a module
# the harness wraps (_operator's attrgetter), or compile strings and write into the real
# builtins (rlcompleter, pydoc, doctest, timeit, gettext).
_BLOCKED_ROOTS = frozenset({
    "js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core", "pyodide_http", "micropip",
    "ctypes", "_ctypes", "subprocess", "_posixsubprocess", "multiprocessing", "_multiprocessing",
    "socket", "_socket", "ssl", "_ssl", "select", "selectors", "os", "posix", "nt", "sys",
    "builtins", "importlib", "_imp", "_frozen_importlib", "_frozen_importlib_external",
    "zipimport", "gc", "inspect", "code", "codeop", "pdb", "bdb", "pickle", "_pickle",
    "marshal", "shelve", "types", "threading", "_thread", "signal", "_signal", "faulthandler",
    "tracemalloc", "_tracemalloc", "sysconfig", "site", "runpy", "pkgutil", "io", "_io",
    "pathlib", "shutil", "tempfile", "asyncio", "_asyncio", "webbrowser", "urllib", "http",
    "ftplib", "smtplib", "telnetlib", "mmap", "resource", "_testcapi", "_testinternalcapi",
    "atexit", "traceback", "annotationlib", "_weakref", "weakref", "ast", "_ast", "dis",
    "opcode", "_opcode", "_operator", "_functools", "_string", "_typing", "_abc",
    "rlcompleter", "pydoc", "doctest", "trace", "profile", "cProfile", "timeit", "gettext",
    "copyreg", "_pyrepl", "idlelib", "tkinter", "unittest", "_warnings", "_py_warnings",
    "_sitebuiltins", "_emscripten_info", "__main__",
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

# Attributes without dunders that still lead to frames, code, closures or other globals.
_FRAME_ATTRS = frozenset({
    "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await", "cr_origin",
    "ag_frame", "ag_code", "ag_await", "f_back", "f_builtins", "f_code", "f_globals",
    "f_locals", "f_trace", "f_generator", "tb_frame", "tb_next", "func_globals", "func_code",
    "func_closure", "func_defaults", "cell_contents", "im_func", "im_self",
})

_SAFE_DUNDER_NAMES = frozenset({"__name__"})

# Dunder methods a guest class may not define: they feed names or values to the stdlib code
# that builds classes (dataclasses reads __annotate__ into generated source) or shadow the
# interpreter's own namespaces.
_FORBIDDEN_DEFS = frozenset({
    "__annotate__", "__annotations__", "__builtins__", "__import__", "__class__", "__dict__",
    "__loader__", "__spec__", "__globals__", "__code__", "__closure__",
})

# Builtins the guest does not have (or has only guarded): source compiled on the guest's behalf
# by stdlib code runs with the real builtins, so it may not name them.
_REAL_ONLY_BUILTINS = frozenset({
    "eval", "exec", "compile", "open", "input", "breakpoint", "help", "exit", "quit",
    "globals", "locals", "vars", "memoryview", "getattr", "hasattr", "setattr", "delattr",
    "copyright", "credits", "license",
})

# Events refused while guest code runs, whoever raises them.
_DENIED_EVENTS = frozenset({
    "os.system", "os.fork", "os.forkpty", "os.kill", "os.killpg", "os.startfile",
    "os.posix_spawn", "os.posix_spawnp", "subprocess.Popen", "pty.spawn", "sys.addaudithook",
    "sys.settrace", "sys.setprofile", "sys._current_frames", "sys._current_exceptions",
    "sys.setrecursionlimit", "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    "builtins.input", "code.__new__", "function.__new__", "marshal.loads", "marshal.load",
    "pickle.find_class", "webbrowser.open", "urllib.Request", "http.client.connect",
    "ftplib.connect", "smtplib.connect", "mmap.__new__", "cpython.run_command",
    "cpython.run_file", "cpython.run_module", "cpython.run_startup",
    "cpython.run_interactivehook", "sys.monitoring.register_callback", "os.chdir",
    "os.putenv", "os.unsetenv",
})
_DENIED_PREFIXES = ("os.exec", "os.spawn", "ctypes.", "socket.", "subprocess.", "_winapi.")

# The only files guest code (or stdlib code working for it) may open, for reading: the
# standard library. Paths are normalised first ('/lib/../dev/x' is '/dev/x').
_READABLE_ROOT = "/lib/"

# CPython's parser recurses in C without a stack check on long operator chains: 20,000 chained
# '+' overflow the worker's stack (fatal to Pyodide), 12,000 parse. Source longer than
# _DEEP_CODE_CHARS (which cannot hold a chain that long) is tokenized first, and a statement
# with more than _MAX_LINE_OPERATORS operators is refused before the parser sees it.
_DEEP_CODE_CHARS = 10000
_MAX_LINE_OPERATORS = 5000
_NESTING_KEYWORDS = frozenset({"not", "and", "or", "if", "lambda", "await", "in", "is"})


def _deep_line(code):
    """The first line of a statement with too many operators to parse safely, or None."""
    operators = 0
    start = None
    try:
        for token in _tokenize.generate_tokens(iter(code.splitlines(True)).__next__):
            kind = token.type
            if kind == _tokenize.NEWLINE:
                operators = 0
                start = None
                continue
            if start is None:
                start = token.start[0]
            if (kind == _tokenize.OP and token.string not in ",:)]}=;") or (kind == _tokenize.NAME and token.string in _NESTING_KEYWORDS):
                operators += 1
                if operators > _MAX_LINE_OPERATORS:
                    return start
    except (_tokenize.TokenError, SyntaxError):
        return None
    return None

# The file through which the harness reaches the host (see python-worker.ts): writing a request
# and reading the answer is how tools and time.sleep work, so no JavaScript object ever exists
# on the Python side.
_HOST_DEVICE = "/dev/atrium-host"


class SandboxError(Exception):
    """An operation this sandbox does not allow."""


class ToolError(Exception):
    """A tool failed; the message says why."""


class _FinalAnswer(BaseException):
    pass


class _OutputLimit(BaseException):
    pass


class _TooLarge(Exception):
    """A value the host cannot take (too large, too deep): the harness's own refusal."""


def _forbidden_attr(name):
    if name in _FRAME_ATTRS:
        return True
    return name.startswith("__") and name.endswith("__") and name not in _SAFE_DUNDERS


def _forbidden_name(name):
    return name.startswith("__") and name.endswith("__") and name not in _SAFE_DUNDER_NAMES


class _Checker(_ast.NodeVisitor):
    """Finds the first construct guest code may not use; 'reserved' names may not be rebound."""

    def __init__(self, reserved, authorized, behalf=False):
        self.reserved = reserved
        self.authorized = authorized
        # Source compiled by stdlib code on the guest's behalf runs with the real builtins.
        self.behalf = behalf
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
        elif self.behalf and node.id in _REAL_ONLY_BUILTINS:
            self.fail(node, "the name '%s' is not available in this sandbox" % node.id)
        elif not isinstance(node.ctx, _ast.Load) and node.id in self.reserved:
            self.fail(node, "'%s' is built in and cannot be assigned; choose another name" % node.id)
        self.generic_visit(node)

    def _check_binding(self, node, name):
        if name is None:
            return
        if name in self.reserved:
            self.fail(node, "'%s' is built in and cannot be redefined; choose another name" % name)
        elif _forbidden_name(name):
            self.fail(node, "the name '%s' is not available in this sandbox" % name)

    def visit_FunctionDef(self, node):
        name = node.name
        if name in _FORBIDDEN_DEFS:
            self.fail(node, "defining '%s' is not allowed in this sandbox" % name)
        elif not (name.startswith("__") and name.endswith("__")):
            self._check_binding(node, name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self._check_binding(node, node.name)
        self.generic_visit(node)

    def visit_ExceptHandler(self, node):
        self._check_binding(node, node.name)
        self.generic_visit(node)

    def visit_MatchAs(self, node):
        self._check_binding(node, node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node):
        self._check_binding(node, node.name)
        self.generic_visit(node)

    def visit_MatchMapping(self, node):
        self._check_binding(node, node.rest)
        self.generic_visit(node)

    def visit_TypeVar(self, node):
        self._check_binding(node, node.name)
        self.generic_visit(node)

    visit_ParamSpec = visit_TypeVarTuple = visit_TypeVar

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

    visit_Nonlocal = visit_Global


def _check_tree(tree, reserved=frozenset(), authorized=None, behalf=False):
    checker = _Checker(reserved, authorized, behalf)
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


def _code_of(function):
    return function.__code__


def _make_audit_hook(authorized, trusted_compilers, trusted_readers):
    """The PEP 578 hook, on for the whole life of the worker (it cannot be removed).

    Nothing turns it off: the harness's own work is let through by the identity of its code
    objects (which guest code cannot forge), never by a flag or a file path. Its only state, the
    re-entrancy guard, lives in this closure, which nothing the guest can reach refers to.
    """
    busy = [False]
    getframe = _sys._getframe
    str_startswith = str.startswith
    normpath = _posixpath.normpath

    def caller_code():
        # 0: caller_code, 1: check, 2: audit, 3: the Python code that raised the event.
        try:
            return getframe(3).f_code
        except ValueError:
            return None

    def check(event, args):
        if event == "function.__new__" and caller_code() in trusted_readers:
            # annotationlib re-runs a class's __annotate__ (the guest's code, with the guest's
            # builtins) under stand-in globals: typing.NamedTuple and dataclasses need it.
            return
        if event in _DENIED_EVENTS or str_startswith(event, _DENIED_PREFIXES):
            raise SandboxError("%s is not allowed in this sandbox" % event)
        if event == "object.__getattr__":
            # Stdlib code reads code objects for its own work (inspect.signature under
            # dataclasses, annotationlib); guest code, or C code called directly by it, may not.
            if caller_code() not in trusted_readers:
                raise SandboxError("access to attribute '%s' is not allowed in this sandbox" % (args[1],))
        elif event == "import":
            name = args[0]
            if type(name) is not str or name.partition(".")[0] in _BLOCKED_ROOTS:
                raise ImportError(_import_refusal(str(name), authorized))
        elif event == "open":
            path, mode = args[0], args[1]
            writes = type(mode) is not str or any(flag in mode for flag in "wax+")
            if writes or type(path) is not str or not str_startswith(normpath(path), _READABLE_ROOT):
                raise PermissionError("files are not available in this sandbox (tried to open %r)" % (path,))
        elif event == "compile":
            source = args[0]
            if type(source) in (str, bytes) and caller_code() not in trusted_compilers:
                # typing, doctest or timeit compiling a string the guest wrote: it runs with the
                # real builtins, so it passes the guest's check and may not name what the
                # guest's builtins leave out. A source too deep to parse safely is refused first.
                text = source if type(source) is str else source.decode("utf-8", "replace")
                if len(text) > _DEEP_CODE_CHARS and _deep_line(text) is not None:
                    raise SandboxError("source with more than %d operators in one statement is not compiled in this sandbox" % _MAX_LINE_OPERATORS)
                problem = _check_tree(compile(source, "<checked>", "exec", _ast.PyCF_ONLY_AST), behalf=True)
                if problem:
                    raise SandboxError(problem[2])

    def audit(event, args):
        if busy[0]:
            return
        busy[0] = True
        try:
            check(event, args)
        finally:
            busy[0] = False

    return audit


def _host_request(fd, request):
    """One request to the host through the device file; returns the host's answer (text)."""
    _os.write(fd, request)
    chunks = []
    while True:
        chunk = _os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks).decode("utf-8")
        chunks.append(chunk)


def _type_name(error):
    name = type(error).__name__
    return name if type(name) is str else "Exception"


def _refuse_evaluation(*args, **kwargs):
    raise SandboxError("evaluating type annotations (typing.get_type_hints, ForwardRef.evaluate) is not available in this sandbox; use the annotations as written")


def _harden_stdlib():
    """Closes the stdlib routes from a guest's values to the real builtins or other modules."""
    # ForwardRef.evaluate looks names up in builtins and in any module's globals
    # (ForwardRef('getattr').evaluate(), ForwardRef('sys', module='typing')); get_type_hints
    # evaluates strings with the real builtins.
    _annotationlib.ForwardRef.evaluate = _refuse_evaluation
    _annotationlib.ForwardRef._evaluate = _refuse_evaluation
    _typing.get_type_hints = _refuse_evaluation
    _typing.evaluate_forward_ref = _refuse_evaluation
    # dataclasses pastes field names into the source it generates; a class whose __annotate__
    # returns 'x if 0 else __import__' as a name would run that source as trusted code.
    get_field = _dataclasses._get_field

    def checked_get_field(cls, a_name, a_type, default_kw_only):
        if type(a_name) is not str or not a_name.isidentifier() or _keyword.iskeyword(a_name):
            raise TypeError("dataclass field names must be identifiers, not %r" % (a_name,))
        return get_field(cls, a_name, a_type, default_kw_only)

    _dataclasses._get_field = checked_get_field
    # CPython raises no audit event for it, and a high limit lets C recursion overflow the stack.
    real = _sys.setrecursionlimit

    def setrecursionlimit(limit):
        raise SandboxError("sys.setrecursionlimit is not available in this sandbox")

    _sys.setrecursionlimit = setrecursionlimit
    # Finalizers that fail after their step (a refused tool call in __del__) print nothing.
    _sys.unraisablehook = lambda unraisable: None
    return real


# The clocks a recorded step tapes (see src/python-tape.ts), and those a replay must never run
# backwards: their live values after the replayed ones are shifted to go on from the last one
# (a new process's monotonic clock may start below the old one's).
_TAPED_CLOCKS = ("time", "time_ns", "monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns")
_STEADY_CLOCKS = frozenset(("monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns"))


def _install_tape():
    """Puts the taped clocks in the time module; returns (begin, end) of a step's tape.

    The clocks are replaced in the module itself, so stdlib Python code that reads time.time()
    is taped too, and a clock the code captured in an earlier step still goes through the tape.
    Outside a recorded step each is the live clock behind one check. Not covered: os.urandom,
    secrets, random.SystemRandom, Random() instances the code makes, datetime.now() and
    date.today() (the C clock of _datetime; no attribute stands in front of it).
    """
    live = {name: getattr(_time, name) for name in _TAPED_CLOCKS}
    state = [None]  # the step's tape while it records, else None

    def begin(request):
        if request is None:
            state[0] = None
            return
        # Seeded per step: random's functions do not all draw through random() (randint uses
        # getrandbits), so values alone could not replay them; the seed replays them all.
        _random.seed(request["seed"])
        replay = request["clocks"]
        state[0] = {
            "replay": {name: replay.get(name, ()) for name in _TAPED_CLOCKS},
            "used": dict.fromkeys(_TAPED_CLOCKS, 0),
            "last": {},
            "shift": {},
            "recorded": {name: [] for name in _TAPED_CLOCKS},
            "room": request["maxValues"],
            "complete": True,
        }

    def end():
        tape, state[0] = state[0], None
        if tape is None:
            return None
        clocks = {name: values for name, values in tape["recorded"].items() if values}
        return {"clocks": clocks, "complete": tape["complete"]}

    def next_value(tape, name):
        replay, used, nanoseconds = tape["replay"][name], tape["used"][name], name.endswith("_ns")
        if used < len(replay):
            value = int(replay[used]) if nanoseconds else float(replay[used])
            tape["used"][name] = used + 1
            tape["last"][name] = value
        else:
            value = live[name]()
            if name in _STEADY_CLOCKS and name in tape["last"]:
                shift = tape["shift"].setdefault(name, max(0, tape["last"][name] - value))
                value += shift
        if tape["room"] > 0:
            tape["room"] -= 1
            # Nanoseconds as text: past 2**53 a JSON number read by JavaScript would be rounded.
            tape["recorded"][name].append(str(value) if nanoseconds else value)
        else:
            tape["complete"] = False
        return value

    def taped(name):
        real = live[name]

        def clock():
            tape = state[0]
            return real() if tape is None else next_value(tape, name)

        clock.__name__ = clock.__qualname__ = name
        return clock

    for name in _TAPED_CLOCKS:
        setattr(_time, name, taped(name))
    return begin, end


def make_harness(config_json, recursion_limit):
    config = _json.loads(config_json)
    authorized = frozenset(config["authorizedImports"])
    limits = config["limits"]
    max_printed = limits["maxPrintedChars"]
    max_transfer = limits["maxTransferChars"]
    max_tool_calls = limits["maxToolCalls"]
    max_error = limits["maxErrorChars"]
    memory_mib = limits["maxMemoryBytes"] // 1048576
    host_fd = _os.open(_HOST_DEVICE, _os.O_RDWR)
    real_getattr = _builtins.getattr
    real_hasattr = _builtins.hasattr
    real_setattr = _builtins.setattr
    real_delattr = _builtins.delattr
    real_import = _builtins.__import__
    ModuleType = _types.ModuleType
    real_setrecursionlimit = _harden_stdlib()
    real_setrecursionlimit(recursion_limit)
    tape_begin, tape_end = _install_tape()

    # ── the state of one step, shared with the guest-facing functions below ────────────────
    # Nothing here decides what the audit hook allows or what the host is told: guest code that
    # reached these cells could only change its own logs, answer or tool calls.
    logs = []
    printed = [0, False]  # characters printed, flood
    final = [False, None]  # final_answer called, its argument
    active = [0, False, False]  # run id (0: between steps), collecting garbage, interrupted
    tool_errors = []  # the ToolErrors the harness raised this step (by identity)

    def on_gc(phase, info):
        active[1] = phase == "start"

    _gc.callbacks.append(on_gc)

    def on_interrupt(signum, frame):
        # The host raised Pyodide's interrupt word (a time limit, an abort): this handler is how
        # a real interrupt differs from guest code raising KeyboardInterrupt.
        active[2] = True
        raise KeyboardInterrupt()

    _signal.signal(_signal.SIGINT, on_interrupt)

    def interrupted():
        active[2] = True
        return KeyboardInterrupt()

    # ── what guest code sees ──────────────────────────────────────────────────────────────
    views = {}

    def check_attr_name(name):
        if type(name) is not str:
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
        if type(name) is not str:
            raise TypeError("module name must be a string")
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

    default_assigned = frozenset(_functools.WRAPPER_ASSIGNMENTS)
    default_updated = frozenset(_functools.WRAPPER_UPDATES)

    def check_wrapper_names(assigned, updated):
        # update_wrapper copies the attributes it is told to: assigned=('__closure__',) hands
        # out a function's cells.
        assigned, updated = tuple(assigned), tuple(updated)
        for name in assigned:
            if name not in default_assigned:
                check_attr_name(name)
        for name in updated:
            if name not in default_updated:
                check_attr_name(name)
        return assigned, updated

    def update_wrapper(wrapper, wrapped, assigned=_functools.WRAPPER_ASSIGNMENTS, updated=_functools.WRAPPER_UPDATES):
        assigned, updated = check_wrapper_names(assigned, updated)
        return _functools.update_wrapper(wrapper, wrapped, assigned, updated)

    def wraps(wrapped, assigned=_functools.WRAPPER_ASSIGNMENTS, updated=_functools.WRAPPER_UPDATES):
        assigned, updated = check_wrapper_names(assigned, updated)
        return _functools.wraps(wrapped, assigned, updated)

    def refused(what):
        def refuse(*args, **kwargs):
            raise SandboxError("%s is not available in this sandbox" % what)
        return refuse

    def sleep(seconds):
        """time.sleep that an interrupt (a time limit, an abort) ends at once."""
        seconds = float(seconds)
        if seconds < 0:
            raise ValueError("sleep length must be non-negative")
        if _host_request(host_fd, ("S%r" % (seconds * 1000.0,)).encode()) == "1":
            raise interrupted()

    # The worker removed Pyodide's own sleep (its globals hold JavaScript); stdlib code that
    # sleeps gets this one.
    _time.sleep = sleep

    REPLACED = {
        # Pyodide's own sleep spins in wasm without looking at the interrupt word.
        ("time", "sleep"): sleep,
        ("operator", "attrgetter"): attrgetter,
        ("operator", "methodcaller"): methodcaller,
        ("functools", "update_wrapper"): update_wrapper,
        ("functools", "wraps"): wraps,
        # Formatter.get_field resolves "0.__globals__" to the object itself.
        ("string", "Formatter"): refused("string.Formatter"),
    }

    def emit(text):
        printed[0] += len(text)
        if printed[0] > max_printed:
            printed[1] = True
            raise _OutputLimit()
        logs.append(text)

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
        final[0] = True
        final[1] = answer
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
    tool_names = [frozenset()]

    def new_namespace():
        namespace.clear()
        namespace.update(__name__="__main__", __builtins__=guest_builtins)

    new_namespace()

    # ── tools ─────────────────────────────────────────────────────────────────────────────
    def call_tool(name, arguments):
        if not active[0] or active[1]:
            # A finalizer (__del__) run by the garbage collector or after its step ended: the
            # call would land in a step whose code never made it.
            raise SandboxError("%s() was called outside the code of a step (from a finalizer such as __del__?); call tools from the step's own code" % name)
        try:
            payload = _json.dumps(arguments, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise TypeError("the arguments of %s() must be JSON data (str, int, float, bool, None, list, dict): %s" % (name, error)) from None
        if len(payload) > max_transfer:
            raise ValueError("the arguments of %s() are %d characters of JSON; the limit is %d" % (name, len(payload), max_transfer))
        outcome = _json.loads(_host_request(host_fd, ("T%d\x00%s\x00%s" % (active[0], name, payload)).encode()))
        if outcome.get("interrupted"):
            raise interrupted()
        if outcome.get("ok"):
            text = outcome.get("json")
            return None if text is None else _json.loads(text)
        if outcome.get("refused"):
            raise SandboxError(outcome.get("message"))
        error = ToolError(outcome.get("message", "the tool failed"))
        tool_errors.append(error)
        raise error

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
        tool_names[0] = frozenset(name for name, _ in tools)

    def set_variables(entries_json):
        for name, text in _json.loads(entries_json):
            namespace[name] = None if text is None else _json.loads(text)

    def reset():
        new_namespace()

    # ── values crossing to the host (guest __repr__/__str__ run here, under the hook) ───────
    def plain(value, depth):
        if depth > 100:
            raise _TooLarge("it is nested more than 100 levels deep")
        kind = type(value)
        if value is None or kind is bool or kind is int or kind is str:
            return value
        if kind is float:
            return value if value == value and value not in (float("inf"), float("-inf")) else None
        if kind is list or kind is tuple or kind is set or kind is frozenset:
            return [plain(item, depth + 1) for item in value]
        if kind is dict:
            return {plain_key(key): plain(item, depth + 1) for key, item in value.items()}
        # Subclasses (namedtuples, IntEnum members) are read through their base type's own
        # methods, so no override of theirs decides what crosses.
        if isinstance(value, bool):
            return bool.__bool__(value)
        if isinstance(value, int):
            return int.__index__(value)
        if isinstance(value, str):
            return str.__str__(value)
        if isinstance(value, float):
            return plain(float.__float__(value), depth)
        if isinstance(value, tuple):
            return [plain(item, depth + 1) for item in tuple.__iter__(value)]
        if isinstance(value, list):
            return [plain(item, depth + 1) for item in list.__iter__(value)]
        if isinstance(value, dict):
            return {plain_key(key): plain(item, depth + 1) for key, item in dict.items(value)}
        text = repr(value)
        if type(text) is not str:
            raise TypeError("__repr__ returned %s, not str" % _type_name(text))
        return text

    def plain_key(key):
        kind = type(key)
        if kind is str:
            return key
        if key is None or kind is bool or kind is int or kind is float:
            return str(key)
        text = str(key)
        if type(text) is not str:
            raise TypeError("__str__ returned %s, not str" % _type_name(text))
        return text

    def to_json(value, what):
        if value is None:
            return None
        text = _json.dumps(plain(value, 0), ensure_ascii=False)
        if len(text) > max_transfer:
            raise _TooLarge("%s is %d characters of JSON; the limit is %d" % (what, len(text), max_transfer))
        return text

    # ── one step ──────────────────────────────────────────────────────────────────────────
    def line_of(code_lines, line):
        if line is None or line < 1 or line > len(code_lines):
            return None
        return code_lines[line - 1]

    def failure(kind, name, message, line, code_lines):
        error = {"kind": kind, "name": name, "message": message[:max_error]}
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

    def describe(error):
        """str(error) for the host; the guest's __str__ runs under the audit hook."""
        try:
            message = str(error)
            if type(message) is not str:
                raise TypeError("__str__ returned a non-string")
            return message
        except KeyboardInterrupt:
            raise
        except BaseException as failed:
            return "(the error's message could not be read: its __str__ raised %s)" % _type_name(failed)

    def kind_of(error):
        for genuine in tool_errors:
            if genuine is error:
                return "tool"
        if isinstance(error, MemoryError):
            return "memory"
        return "runtime"

    def run_step(run_id, code, tape_json=None):
        # An interrupt may land in the harness itself, after the guest code ended.
        try:
            tape_begin(None if tape_json is None else _json.loads(tape_json))
            return run_guest(run_id, code)
        except KeyboardInterrupt:
            active[0] = 0
            return finish({"outputJson": None, "isFinalAnswer": False, "interrupted": True})
        except BaseException as error:
            # A fault of the harness itself, reported as a value so the run still ends cleanly.
            active[0] = 0
            message = "the sandbox failed to run this step: %s" % _type_name(error)
            failed = {"kind": "runtime", "name": "SandboxError", "message": message}
            return finish({"outputJson": None, "isFinalAnswer": False, "interrupted": False, "error": failed})

    def run_guest(run_id, code):
        filename = "<step-%d>" % run_id
        code_lines = code.split("\n")
        logs.clear()
        printed[0] = 0
        printed[1] = False
        final[0] = False
        final[1] = None
        active[2] = False
        del tool_errors[:]
        result = {"outputJson": None, "isFinalAnswer": False, "interrupted": False}
        try:
            if len(code) > _DEEP_CODE_CHARS:
                deep = _deep_line(code)
                if deep is not None:
                    result["error"] = failure("syntax", "RecursionError", "this statement has more than %d operators, too deeply nested to compile; split it into several statements" % _MAX_LINE_OPERATORS, deep, code_lines)
                    return finish(result)
            tree = compile(code, filename, "exec", _ast.PyCF_ONLY_AST)
        except SyntaxError as error:
            result["error"] = failure("syntax", "SyntaxError", error.msg or "invalid syntax", error.lineno, code_lines)
            return finish(result)
        except RecursionError:
            result["error"] = failure("syntax", "RecursionError", "the code is nested too deeply to compile; split it into simpler statements", None, code_lines)
            return finish(result)
        except (ValueError, MemoryError) as error:
            result["error"] = failure("syntax", type(error).__name__, str(error), None, code_lines)
            return finish(result)
        try:
            problem = _check_tree(tree, builtin_names | tool_names[0], authorized)
        except RecursionError:
            problem = (None, "RecursionError", "the code is nested too deeply to check; split it into simpler statements")
        if problem:
            result["error"] = failure("runtime", problem[1], problem[2], problem[0], code_lines)
            return finish(result)
        last = None
        if tree.body and isinstance(tree.body[-1], _ast.Expr):
            last = _ast.Expression(tree.body.pop().value)
        try:
            body = compile(tree, filename, "exec")
            tail = compile(last, filename, "eval") if last is not None else None
        except SyntaxError as error:
            result["error"] = failure("syntax", "SyntaxError", error.msg or "invalid syntax", error.lineno, code_lines)
            return finish(result)
        except (ValueError, MemoryError, RecursionError) as error:
            result["error"] = failure("syntax", type(error).__name__, str(error), None, code_lines)
            return finish(result)
        del tree, last
        value = None
        active[0] = run_id
        try:
            exec(body, namespace)
            if tail is not None:
                value = eval(tail, namespace)
        except _FinalAnswer:
            pass
        except _OutputLimit:
            pass
        except KeyboardInterrupt as error:
            if active[2]:
                result["interrupted"] = True
            else:
                # Raised by the code itself: reported as its error, not as a time limit.
                line = guest_line(error.__traceback__, filename)
                result["error"] = failure("runtime", "KeyboardInterrupt", "the code raised KeyboardInterrupt itself; only the time limit or an abort interrupts a step", line, code_lines)
            error = None
        except BaseException as error:
            if not final[0] and not printed[1]:
                line = guest_line(error.__traceback__, filename)
                message = describe(error)
                if isinstance(error, MemoryError) and not message:
                    message = "out of memory: the sandbox may use at most %d MiB (maxMemoryBytes)" % memory_mib
                result["error"] = failure(kind_of(error), _type_name(error), message, line, code_lines)
            error = None
        finally:
            # From here on a tool call comes from a finalizer, not from the step's code.
            active[0] = 0
        if printed[1]:
            result["error"] = {
                "kind": "output-limit",
                "name": "OutputLimitError",
                "message": "The code printed more than %d characters (an output flood) and was stopped; print less, or a summary" % max_printed,
            }
        elif final[0]:
            answer = final[1]
            final[1] = None
            result.pop("error", None)
            try:
                result["outputJson"] = to_json(answer, "the final answer")
                result["isFinalAnswer"] = True
            except (_TooLarge, RecursionError) as error:
                result["error"] = failure("output-limit", "OutputLimitError", "final_answer() could not send its answer: %s. Return less, or a summary." % describe(error), None, code_lines)
            except KeyboardInterrupt:
                raise
            except BaseException as error:
                result["error"] = failure("runtime", "FinalAnswerError", "final_answer() could not send its answer: turning it into JSON raised %s: %s" % (_type_name(error), describe(error)), None, code_lines)
            answer = None
        elif "error" not in result and not result["interrupted"] and value is not None:
            try:
                result["outputJson"] = to_json(value, "the value of the last expression")
            except (_TooLarge, RecursionError) as error:
                result["error"] = failure("output-limit", "OutputLimitError", describe(error) + ". Return less, or print a summary.", None, code_lines)
            except KeyboardInterrupt:
                raise
            except BaseException as error:
                result["error"] = failure("runtime", _type_name(error), "the value of the last expression could not be turned into JSON: %s" % describe(error), None, code_lines)
        value = None
        return finish(result)

    def finish(result):
        tape = tape_end()
        if tape is not None:
            result["tape"] = tape
        result["logs"] = "".join(logs)
        logs.clear()
        return _json.dumps(result, ensure_ascii=False)

    # The hook trusts, by code object, the import system and the stdlib code that compiles
    # source it generated itself from checked names, and the readers of code objects that
    # hand none to the guest.
    trusted_compilers = frozenset({
        _code_of(_zipimport._compile_source),
        _code_of(_sys.modules["_frozen_importlib"]._call_with_frames_removed),
        _code_of(_dataclasses._FuncBuilder.add_fns_to_class),
        _code_of(_collections.namedtuple),
        _code_of(run_guest),
    })
    import inspect as _inspect
    trusted_readers = frozenset({
        _code_of(_annotationlib.call_annotate_function),
        _code_of(_annotationlib._build_closure),
        _code_of(_inspect._signature_from_function),
        _code_of(guest_line),
    })
    _sys.addaudithook(_make_audit_hook(authorized, trusted_compilers, trusted_readers))

    return {"run_step": run_step, "set_tools": set_tools, "set_variables": set_variables, "reset": reset}
