# The guest half of the micro-VM executor: a long-lived CPython process (`python3 -c` this
# file's text, which the host reads from its package) that keeps one globals dict across steps,
# like a notebook. The VM is the security boundary, so unlike the Pyodide harness this one does
# not police the code it runs.
#
# It speaks JSON lines with the host over its own stdin/stdout (one exec of the guest agent):
# host -> guest `run`, `tools`, `vars`, `reset`, `tool-result`, `clock` (a tool call waits for an
# approval: the step's timer stops, then restarts); guest -> host `ready`, `done`,
# `tool`. Before any guest code runs it moves the protocol to private descriptors and points
# fds 0 and 1 at /dev/null and stderr, so neither `input()` nor a child process writing to
# stdout can corrupt the channel. Time limits are the guest's own: SIGALRM (setitimer) raises
# inside the step; the host sends SIGINT to abort. Printed output is kept as every executor
# keeps it: the first and last halves of `maxOutputChars`, with the count of what was dropped
# between them (`cut`), which the host turns into its note.
#
# src/executor/guest-harness.test.ts runs it under the host's CPython.
import ast, json, os, signal, sys, threading, traceback

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
    """sys.stdout / sys.stderr during a step: keeps the first and last halves of 'limit'
    characters, and counts what it drops between them."""

    def __init__(self, limit):
        self.head_limit = (limit + 1) // 2
        self.tail_limit = limit // 2
        self.head = []
        self.head_size = 0
        self.tail = []
        self.tail_size = 0
        self.total = 0

    def write(self, text):
        text = str(text)
        written = len(text)
        self.total += written
        room = self.head_limit - self.head_size
        if room > 0 and text:
            kept = text[:room]
            self.head.append(kept)
            self.head_size += len(kept)
            text = text[room:]
        if text:
            self.tail.append(text)
            self.tail_size += len(text)
            if self.tail_size > 2 * self.tail_limit + 1024:
                self._compact()
        return written

    def _compact(self):
        joined = "".join(self.tail)
        kept = joined[-self.tail_limit:] if self.tail_limit > 0 else ""
        self.tail = [kept] if kept else []
        self.tail_size = len(kept)

    def flush(self):
        pass

    def isatty(self):
        return False

    def kept(self):
        """The text kept (head and tail, joined) and how many characters were dropped between."""
        self._compact()
        return "".join(self.head) + "".join(self.tail), self.total - self.head_size - self.tail_size


state = {"tools": [], "next_id": 0, "globals": None, "held": None}


def hold_clock(held):
    """A tool call waits for a person's approval: the step's timer stops (held) and restarts
    with what it had left, so the wait does not count against the time limit."""
    # Only while nothing else of the step can run: a thread the code started would otherwise
    # compute on the person's time.
    if held and state["held"] is None and threading.active_count() == 1:
        state["held"] = signal.setitimer(signal.ITIMER_REAL, 0)[0]
    elif not held and state["held"] is not None:
        left, state["held"] = state["held"], None
        if left > 0:
            signal.setitimer(signal.ITIMER_REAL, left)


def call_tool(name, args, kwargs):
    state["next_id"] += 1
    call_id = state["next_id"]
    send({"op": "tool", "id": call_id, "name": name, "args": list(args), "kwargs": kwargs})
    while True:
        line = _in.readline()
        if not line:
            os._exit(0)
        reply = json.loads(line)
        if reply.get("op") == "clock":
            hold_clock(reply.get("held") is True)
            continue
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


def run_step(code, timeout_ms, max_output_chars):
    scope = state["globals"]
    logs = _Logs(max_output_chars)
    result = {"op": "done", "final": False, "output": None}
    try:
        tree = ast.parse(code, STEP)
    except SyntaxError as error:
        result["error"] = {"kind": "syntax", "name": type(error).__name__, "message": error.msg or str(error), "line": error.lineno}
        result["logs"] = ""
        result["cut"] = 0
        return result
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = logs
    state["held"] = None
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
    result["logs"], result["cut"] = logs.kept()
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
            send(run_step(message["code"], message.get("timeoutMs", 0), message.get("maxOutputChars", 20000)))
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
