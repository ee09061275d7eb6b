/**
 * Drops every module that holds or makes JavaScript objects (`js`, `pyodide_js`, `pyodide.*`,
 * `_pyodide*`) from sys.modules, with the finders that would bring them back, and every other
 * reference a stdlib module keeps to them (found by walking gc referents from sys.modules):
 * typing's overload registry and caches, Pyodide's time.sleep, the asyncio loop policy,
 * shutil's wheel format, json's `jsnull`, `__main__`'s globals. The harness imported what it
 * needs before; the audit hook refuses importing them again. test/python-js-reachability.test.ts
 * walks every object reachable from sys.modules afterwards and finds none of them.
 */
export const FORGET_JS_MODULES = `
import sys
def _forget():
    import asyncio, asyncio.events, json.encoder, shutil, time, typing
    roots = ("js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core")
    for name in [name for name in sys.modules if name.partition(".")[0] in roots]:
        del sys.modules[name]
    sys.meta_path[:] = [
        finder for finder in sys.meta_path
        if getattr(finder, "__module__", "").partition(".")[0] not in roots
    ]
    typing.clear_overloads()
    for clear in typing._cleanups:
        clear()
    asyncio.events._event_loop_policy = None
    asyncio.run = None
    # Pyodide patched json.encoder to write jsnull as null; none can occur any more.
    json.encoder._JSNULL = object()
    for name in list(shutil._ARCHIVE_FORMATS):
        if name not in ("zip", "tar", "gztar", "bztar", "xztar", "zstdtar"):
            shutil.unregister_archive_format(name)
    for name in list(shutil._UNPACK_FORMATS):
        if name not in ("zip", "tar", "gztar", "bztar", "xztar", "zstdtar"):
            shutil.unregister_unpack_format(name)
    # Pyodide's own sleep holds JavaScript in its globals; the harness installs its own.
    time.sleep = None
    main = sys.modules["__main__"].__dict__
    for name in [name for name in main if name not in ("__name__", "__doc__", "__builtins__")]:
        del main[name]
_forget()
del _forget, sys
`;
