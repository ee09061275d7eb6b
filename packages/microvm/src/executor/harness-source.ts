/**
 * The guest half of the micro-VM executor: a long-lived CPython process (`python3 -c` this
 * source) that keeps one globals dict across steps, like a notebook. The VM is the security
 * boundary, so unlike the Pyodide harness this one does not police the code it runs.
 *
 * It speaks JSON lines with the host over its own stdin/stdout (one exec of the guest agent):
 * host → guest `run`, `tools`, `vars`, `reset`, `tool-result`; guest → host `ready`, `done`,
 * `tool`. Before any guest code runs it moves the protocol to private descriptors and points
 * fds 0 and 1 at /dev/null and stderr, so neither `input()` nor a child process writing to
 * stdout can corrupt the channel. Time limits are the guest's own: SIGALRM (setitimer) raises
 * inside the step; the host sends SIGINT to abort. Kept as a TypeScript string so the build ships
 * it without a copy step; written without backticks or "${".
 */
export const HARNESS_SOURCE = String.raw`
import ast, json, os, signal, sys, traceback

_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
_null = os.open("/dev/null", os.O_RDONLY)
os.dup2(_null, 0)
os.dup2(2, 1)
os.close(_null)
STEP = "<step>"


def send(message):
    _out.write(json.dumps(message) + "\n")
    _out.flush()


class ToolError(Exception):
    """A host tool failed; the message says why."""


class ValidationError(ToolError):
    """A host tool refused its arguments."""


class _FinalAnswer(BaseException):
    def __init__(self, value):
        self.value = value


class _Timeout(BaseException):
    pass


class _Logs:
    """sys.stdout / sys.stderr during a step: keeps at most 'limit' characters."""

    def __init__(self, limit):
        self.parts = []
        self.size = 0
        self.limit = limit
        self.cut = False

    def write(self, text):
        text = str(text)
        room = self.limit - self.size
        if len(text) > room:
            self.cut = True
            text = text[:max(room, 0)]
        if text:
            self.parts.append(text)
            self.size += len(text)
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False

    def text(self):
        joined = "".join(self.parts)
        return joined + "\n[output truncated]\n" if self.cut else joined


state = {"tools": [], "next_id": 0, "globals": None}


def call_tool(name, args, kwargs):
    state["next_id"] += 1
    call_id = state["next_id"]
    send({"op": "tool", "id": call_id, "name": name, "args": list(args), "kwargs": kwargs})
    while True:
        line = _in.readline()
        if not line:
            os._exit(0)
        reply = json.loads(line)
        # A result for an earlier call (cut short by a time limit) is stale: skip it.
        if reply.get("op") == "tool-result" and reply.get("id") == call_id:
            break
    if not reply["ok"]:
        kind = ValidationError if reply.get("name") == "ValidationError" else ToolError
        raise kind(reply["message"])
    return None if reply.get("json") is None else json.loads(reply["json"])


def make_tool(name):
    def tool(*args, **kwargs):
        return call_tool(name, args, kwargs)

    tool.__name__ = name
    return tool


def final_answer(value=None):
    raise _FinalAnswer(value)


def fresh_globals():
    scope = {"__name__": "__main__", "__builtins__": __builtins__}
    install_tools(scope)
    return scope


def install_tools(scope):
    scope["final_answer"] = final_answer
    scope["ToolError"] = ToolError
    scope["ValidationError"] = ValidationError
    for name in state["tools"]:
        scope[name] = make_tool(name)


def to_json(value):
    try:
        return {"value": json.loads(json.dumps(value, allow_nan=False))}
    except (TypeError, ValueError, RecursionError):
        return {"value": repr(value), "repr": True}


def failing_line(tb):
    line = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == STEP:
            line = frame.lineno
    return line


def run_step(code, timeout_ms, max_log_chars):
    scope = state["globals"]
    logs = _Logs(max_log_chars)
    result = {"op": "done", "final": False, "output": None}
    try:
        tree = ast.parse(code, STEP)
    except SyntaxError as error:
        result["error"] = {"kind": "syntax", "name": type(error).__name__, "message": error.msg or str(error), "line": error.lineno}
        result["logs"] = ""
        return result
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = logs
    if timeout_ms > 0:
        signal.setitimer(signal.ITIMER_REAL, timeout_ms / 1000.0)
    try:
        try:
            exec(compile(tree, STEP, "exec"), scope)
            if last is not None:
                value = eval(compile(last, STEP, "eval"), scope)
                # None is "no value", as in a notebook (a trailing print() must not show null).
                if value is not None:
                    result.update(to_json(value))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            sys.stdout, sys.stderr = saved
    except _FinalAnswer as answer:
        result["final"] = True
        result.update(to_json(answer.value))
    except _Timeout:
        result["error"] = {"kind": "timeout", "name": "TimeoutError", "message": "the step ran longer than its time limit of %d ms" % timeout_ms}
    except KeyboardInterrupt:
        result["error"] = {"kind": "aborted", "name": "KeyboardInterrupt", "message": "aborted"}
    except BaseException as error:
        kind = "tool" if isinstance(error, ToolError) else "memory" if isinstance(error, MemoryError) else "runtime"
        result["error"] = {"kind": kind, "name": type(error).__name__, "message": str(error) or type(error).__name__, "line": failing_line(error.__traceback__)}
    result["logs"] = logs.text()
    return result


def on_alarm(signum, frame):
    raise _Timeout()


signal.signal(signal.SIGALRM, on_alarm)
state["globals"] = fresh_globals()
send({"op": "ready", "version": sys.version.split()[0]})
while True:
    try:
        line = _in.readline()
        if not line:
            break
        message = json.loads(line)
        op = message.get("op")
        if op == "run":
            send(run_step(message["code"], message.get("timeoutMs", 0), message.get("maxLogChars", 100000)))
        elif op == "tools":
            state["tools"] = list(message["names"])
            install_tools(state["globals"])
            send({"op": "ok"})
        elif op == "vars":
            state["globals"].update(json.loads(message["json"]))
            send({"op": "ok"})
        elif op == "reset":
            state["globals"] = fresh_globals()
            send({"op": "ok"})
    except KeyboardInterrupt:
        # An abort that arrived after its step had finished: nothing is running, carry on.
        continue
`;
