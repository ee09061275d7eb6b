/**
 * JavaScript evaluated once in every fresh sandbox context. It is a function taking the host
 * bridge functions and returning the helpers the host calls; nothing of it is reachable by name
 * from user code except the globals it defines on purpose (`console`, `final_answer`, tools).
 * It captures the built-ins it relies on first, so user code that overwrites `JSON` or
 * `Array.prototype.join` later cannot change how values leave the sandbox.
 *
 * Values leave the sandbox as JSON text (`JSON.stringify` semantics: toJSON honoured, so Dates
 * become ISO strings; undefined, functions and symbols dropped inside objects; BigInt written as
 * a decimal string; a cycle is a TypeError). At the top level, undefined stays undefined and a
 * function or symbol is described as a string (`[Function: f]`, `Symbol(s)`).
 *
 * `console.*` formats like a small, deterministic `util.inspect`: single line, strings quoted
 * when nested, depth 2, `[Getter]` instead of calling getters, `[Circular]` for cycles.
 */
export const SANDBOX_PRELUDE = String.raw`(function (hostPrint, hostFinal, hostCallTool) {
  "use strict";
  const G = globalThis;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const defineProperty = Object.defineProperty;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const getPrototypeOf = Object.getPrototypeOf;
  const ownKeys = Reflect.ownKeys;
  const isArray = Array.isArray;
  const StringOf = String;
  const call = Function.prototype.call;
  const uncurry = (fn) => call.bind(fn);
  const push = uncurry(Array.prototype.push);
  const join = uncurry(Array.prototype.join);
  const slice = uncurry(Array.prototype.slice);
  const includes = uncurry(Array.prototype.includes);
  const test = uncurry(RegExp.prototype.test);
  const functionToString = uncurry(Function.prototype.toString);
  const dateToISOString = uncurry(Date.prototype.toISOString);
  const dateGetTime = uncurry(Date.prototype.getTime);
  const regExpToString = uncurry(RegExp.prototype.toString);
  const symbolToString = uncurry(Symbol.prototype.toString);
  const bigintToString = uncurry(BigInt.prototype.toString);
  const mapEntries = uncurry(Map.prototype.entries);
  const setValues = uncurry(Set.prototype.values);
  const mapSize = uncurry(getOwnPropertyDescriptor(Map.prototype, "size").get);
  const setSize = uncurry(getOwnPropertyDescriptor(Set.prototype, "size").get);
  const weakSetHas = uncurry(WeakSet.prototype.has);
  const weakSetAdd = uncurry(WeakSet.prototype.add);
  const stringSlice = uncurry(String.prototype.slice);
  const stringReplace = uncurry(String.prototype.replace);
  const ErrorProto = Error.prototype;
  const TypeErrorCtor = TypeError;
  const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  const toolErrors = new WeakSet();
  const isToolError = (value) => { try { return weakSetHas(toolErrors, value); } catch { return false; } };
  // Its callbacks run whenever the collector finds a target dead: in a later step, inside that
  // step's time budget. The sandbox has none (nor a use for one).
  delete G.FinalizationRegistry;

  // The tape (see run-tape.ts): a step that may be replayed in another process records what
  // Math.random, Date.now, new Date() and Date() gave, and a replay gives those values first,
  // in order, then live ones. The sources are wrapped in every context, not only while a step
  // records, so a function that code captured in an earlier step still goes through the tape;
  // outside a recorded step each is the live source behind one check. (QuickJS has no
  // performance.now.)
  const liveRandom = Math.random;
  const LiveDate = Date;
  const liveNow = Date.now;
  const construct = Reflect.construct;
  const apply = Reflect.apply;
  const dateToString = uncurry(Date.prototype.toString);
  let tape;
  function fromTape(name, live) {
    const replay = tape.replay[name];
    const value = tape.used[name] < replay.length ? replay[tape.used[name]++] : live();
    if (tape.room > 0) {
      tape.room--;
      push(tape.recorded[name], value);
    } else {
      tape.complete = false;
    }
    return value;
  }
  const random = { random() { return tape ? fromTape("random", liveRandom) : liveRandom(); } }.random;
  const now = { now() { return tape ? fromTape("now", liveNow) : liveNow(); } }.now;
  // A proxy keeps everything else of Date as it is: its statics, prototype, length, name.
  const TapedDate = new Proxy(LiveDate, {
    construct(target, args, newTarget) {
      return construct(target, tape && args.length === 0 ? [fromTape("now", liveNow)] : args, newTarget);
    },
    apply(target, self, args) {
      return tape ? dateToString(new LiveDate(fromTape("now", liveNow))) : apply(target, self, args);
    },
  });
  // As the built-ins are defined: writable, configurable, not enumerable.
  const builtIn = (object, name, value) =>
    defineProperty(object, name, { value, writable: true, configurable: true, enumerable: false });
  builtIn(Math, "random", random);
  builtIn(LiveDate, "now", now);
  builtIn(LiveDate.prototype, "constructor", TapedDate);
  builtIn(G, "Date", TapedDate);

  const isInstance = (value, ctor) => {
    try { return value instanceof ctor; } catch { return false; }
  };

  function replacer(key, value) {
    return typeof value === "bigint" ? bigintToString(value) : value;
  }

  function describeCallable(value) {
    if (typeof value === "symbol") return symbolToString(value);
    let source = "";
    try { source = functionToString(value); } catch {}
    const name = typeof value.name === "string" && value.name ? value.name : "";
    if (test(/^class[\s{]/, source)) return "[class " + (name || "(anonymous)") + "]";
    return name ? "[Function: " + name + "]" : "[Function (anonymous)]";
  }

  /** JSON text of a value leaving the sandbox, or undefined for undefined. */
  function toJson(value, what) {
    if (value === undefined) return undefined;
    if (typeof value === "function" || typeof value === "symbol") return stringify(describeCallable(value));
    try {
      return stringify(value, replacer);
    } catch (error) {
      const reason = isInstance(error, Error) ? error.message : StringOf(error);
      throw new TypeErrorCtor(what + " is not JSON-compatible data: " + reason);
    }
  }

  function cut(text, limit) {
    return text.length > limit ? stringSlice(text, 0, limit) + "… [" + (text.length - limit) + " characters cut]" : text;
  }

  function quote(text) {
    return "'" + stringReplace(stringReplace(stringReplace(text, /\\/g, "\\\\"), /'/g, "\\'"), /\n/g, "\\n") + "'";
  }

  function formatKey(key) {
    if (typeof key === "symbol") return "[" + symbolToString(key) + "]";
    return test(identifier, key) ? key : quote(key);
  }

  function inspect(value, depth, seen) {
    switch (typeof value) {
      case "string": return depth === 0 ? value : quote(value);
      case "number": return value === 0 && 1 / value < 0 ? "-0" : StringOf(value);
      case "bigint": return bigintToString(value) + "n";
      case "symbol": return symbolToString(value);
      case "undefined": return "undefined";
      case "boolean": return value ? "true" : "false";
      case "function": return describeCallable(value);
    }
    if (value === null) return "null";
    if (includes(seen, value)) return "[Circular]";
    if (isInstance(value, Error)) {
      let name = "Error", message = "";
      try { name = StringOf(value.name); message = StringOf(value.message); } catch {}
      return message ? name + ": " + message : name;
    }
    if (isInstance(value, Date)) {
      return isNaN(dateGetTime(value)) ? "Invalid Date" : dateToISOString(value);
    }
    if (isInstance(value, RegExp)) return regExpToString(value);
    if (depth > 2) return isArray(value) ? "[Array]" : "[Object]";
    push(seen, value);
    try {
      if (isArray(value)) return formatList("", itemsOf(value, depth, seen), "[", "]");
      if (isInstance(value, Map)) {
        const parts = [];
        for (const [k, v] of mapEntries(value)) {
          if (parts.length >= 100) { push(parts, "... more items"); break; }
          push(parts, inspect(k, depth + 1, seen) + " => " + inspect(v, depth + 1, seen));
        }
        return formatList("Map(" + mapSize(value) + ") ", parts, "{", "}");
      }
      if (isInstance(value, Set)) {
        const parts = [];
        for (const v of setValues(value)) {
          if (parts.length >= 100) { push(parts, "... more items"); break; }
          push(parts, inspect(v, depth + 1, seen));
        }
        return formatList("Set(" + setSize(value) + ") ", parts, "{", "}");
      }
      if (isInstance(value, Promise)) return "Promise {}";
      return formatList(prefixOf(value), propertiesOf(value, depth, seen), "{", "}");
    } finally {
      seen.length--;
    }
  }

  function formatList(prefix, parts, open, close) {
    return parts.length ? prefix + open + " " + join(parts, ", ") + " " + close : prefix + open + close;
  }

  function prefixOf(value) {
    const proto = getPrototypeOf(value);
    if (proto === null) return "[Object: null prototype] ";
    const ctor = getOwnPropertyDescriptor(proto, "constructor");
    const name = ctor && typeof ctor.value === "function" ? ctor.value.name : "";
    return name && name !== "Object" ? name + " " : "";
  }

  function itemsOf(array, depth, seen) {
    const parts = [];
    const length = array.length;
    for (let i = 0; i < length && i < 100; i++) push(parts, describeProperty(array, i, depth, seen));
    if (length > 100) push(parts, "... " + (length - 100) + " more items");
    return parts;
  }

  function propertiesOf(object, depth, seen) {
    const parts = [];
    for (const key of ownKeys(object)) {
      const descriptor = getOwnPropertyDescriptor(object, key);
      if (!descriptor || !descriptor.enumerable) continue;
      if (parts.length >= 100) { push(parts, "..."); break; }
      push(parts, formatKey(key) + ": " + describeProperty(object, key, depth, seen));
    }
    return parts;
  }

  function describeProperty(object, key, depth, seen) {
    const descriptor = getOwnPropertyDescriptor(object, key);
    if (!descriptor) return "<empty>";
    if (descriptor.get || descriptor.set) return descriptor.get && descriptor.set ? "[Getter/Setter]" : descriptor.get ? "[Getter]" : "[Setter]";
    return inspect(descriptor.value, depth + 1, seen);
  }

  function format(args) {
    const parts = [];
    for (let i = 0; i < args.length; i++) push(parts, inspect(args[i], 0, []));
    return join(parts, " ") + "\n";
  }

  // Printed text is buffered here and handed to the host in chunks (a host call costs tens of
  // microseconds); the host takes the rest when the step ends. After final_answer nothing is kept.
  let buffered = [];
  let bufferedChars = 0;
  let ended = false;
  function flushLogs() {
    if (!buffered.length) return;
    const text = join(buffered, "");
    buffered = [];
    bufferedChars = 0;
    // As JSON text, like every value leaving the sandbox: a C string would end at a NUL and
    // lose lone surrogates.
    hostPrint(stringify(text));
  }

  const console = {};
  for (const level of ["log", "info", "debug", "warn", "error"]) {
    defineProperty(console, level, {
      value: { [level](...args) {
        if (ended) return;
        const text = format(args);
        push(buffered, text);
        bufferedChars += text.length;
        if (bufferedChars >= 8192) flushLogs();
      } }[level],
      enumerable: true,
    });
  }
  defineProperty(G, "console", { value: console, writable: false, configurable: false, enumerable: false });

  function final_answer(value) {
    hostFinal(toJson(value, "the final answer"));
    ended = true;
    // The host has asked the interrupt handler to stop; spin until it does, so no later line,
    // catch or finally block runs.
    for (;;) {}
  }
  defineProperty(G, "final_answer", { value: final_answer, writable: false, configurable: false, enumerable: false });

  function makeTool(name) {
    return { [name](input) {
      let json;
      try {
        json = toJson(input === undefined ? {} : input, "the input of tool " + name);
      } catch (error) {
        return Promise.reject(error);
      }
      return hostCallTool(name, json);
    } }[name];
  }

  return {
    exportValue(value) { return toJson(value, "the value of the last expression"); },
    importValue(json) { return json === undefined ? undefined : parse(json); },
    setGlobal(name, json) {
      defineProperty(G, name, { value: json === undefined ? undefined : parse(json), writable: true, configurable: true, enumerable: true });
    },
    defineTool(name) {
      defineProperty(G, name, { value: makeTool(name), writable: false, configurable: true, enumerable: false });
    },
    removeGlobal(name) { delete G[name]; },
    endStep() {
      try { flushLogs(); } finally { buffered = []; bufferedChars = 0; ended = false; }
    },
    markToolError(error) { weakSetAdd(toolErrors, error); },
    beginTape(replayJson, room) {
      const replay = replayJson === undefined ? undefined : parse(replayJson);
      tape = {
        __proto__: null,
        replay: { __proto__: null, random: replay ? replay.random : [], now: replay ? replay.now : [] },
        used: { __proto__: null, random: 0, now: 0 },
        recorded: { __proto__: null, random: [], now: [] },
        room: +room,
        complete: true,
      };
    },
    endTape() {
      const ended = tape;
      tape = undefined;
      if (!ended) return undefined;
      // Numbers only, joined by hand: no toJSON or toString the code defined takes part.
      const values = ended.recorded;
      return '{"random":[' + join(values.random, ",") + '],"now":[' + join(values.now, ",") + '],"complete":' + (ended.complete ? "true" : "false") + "}";
    },
    describeError(error, maxChars) {
      // A null prototype: an inherited toJSON (Object.prototype.toJSON) cannot replace it.
      const out = { __proto__: null, isError: false, isToolError: isToolError(error), name: "Error", message: "", stack: "" };
      try {
        if (error !== null && (typeof error === "object" || typeof error === "function")) {
          out.isError = isInstance(error, Error) || getPrototypeOf(error) === ErrorProto;
          const name = error.name, message = error.message, stack = error.stack;
          if (typeof name === "string") out.name = name;
          out.message = typeof message === "string" ? message : inspect(error, 0, []);
          if (typeof stack === "string") out.stack = stack;
        } else {
          out.message = "Uncaught " + inspect(error, 1, []);
        }
      } catch (inner) {
        out.message = "(the thrown value could not be read)";
      }
      // Cut here, so a 20-million-character message never leaves the sandbox.
      const limit = +maxChars;
      out.name = cut(out.name, 200);
      out.message = cut(out.message, limit);
      out.stack = cut(out.stack, limit);
      return stringify(out);
    },
  };
})`;
