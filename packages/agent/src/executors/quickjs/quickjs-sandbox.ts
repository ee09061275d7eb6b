import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from "quickjs-emscripten";
import { newQuickJsModule } from "./quickjs-module.js";
import { SANDBOX_PRELUDE } from "./sandbox-prelude.js";

export interface SandboxLimits {
  maxMemoryBytes: number;
  maxStackBytes: number;
}

/** What the sandbox calls back into. Every callback runs while QuickJS is on the stack. */
export interface SandboxCallbacks {
  shouldInterrupt(): boolean;
  /** Printed text as JSON text (a C string would end at a NUL and lose lone surrogates). */
  print(json: string): void;
  finalAnswer(json: string | undefined): void;
  /** Returns a promise handle; the caller of the host function takes ownership of it. */
  callTool(name: string, json: string): QuickJSHandle;
}

const HELPER_NAMES = [
  "exportValue",
  "importValue",
  "setGlobal",
  "defineTool",
  "removeGlobal",
  "endStep",
  "markToolError",
  "describeError",
  "beginTape",
  "endTape",
] as const;
export type HelperName = (typeof HELPER_NAMES)[number];

/**
 * One QuickJS runtime + context on its own wasm instance, with the prelude installed and the
 * handles of its helper functions held here. Every handle this class creates is disposed by
 * `dispose()`; a context with live handles cannot be freed (QuickJS aborts the instance), so
 * nothing else may keep one past a run.
 */
export class QuickJsSandbox {
  private constructor(
    readonly module: QuickJSWASMModule,
    readonly runtime: QuickJSRuntime,
    readonly context: QuickJSContext,
    private readonly helpers: Map<HelperName, QuickJSHandle>,
  ) {}

  /** A sandbox on a new wasm instance. */
  static async create(limits: SandboxLimits, host: SandboxCallbacks): Promise<QuickJsSandbox> {
    return QuickJsSandbox.onModule(await newQuickJsModule(), limits, host);
  }

  /** A fresh runtime and context on an existing (healthy) wasm instance. */
  static onModule(module: QuickJSWASMModule, limits: SandboxLimits, host: SandboxCallbacks): QuickJsSandbox {
    const runtime = module.newRuntime();
    const helpers = new Map<HelperName, QuickJSHandle>();
    let context: QuickJSContext | undefined;
    try {
      runtime.setMemoryLimit(limits.maxMemoryBytes);
      runtime.setMaxStackSize(limits.maxStackBytes);
      runtime.setInterruptHandler(() => host.shouldInterrupt());
      context = runtime.newContext();
      installPrelude(context, host, helpers);
      return new QuickJsSandbox(module, runtime, context, helpers);
    } catch (error) {
      for (const handle of helpers.values()) handle.dispose();
      context?.dispose();
      runtime.dispose();
      throw error;
    }
  }

  /** Calls a prelude helper with string (or undefined) arguments. */
  callHelper(name: HelperName, ...args: (string | undefined | QuickJSHandle)[]) {
    const context = this.context;
    const owned: QuickJSHandle[] = [];
    try {
      const handles = args.map((arg) => {
        if (arg === undefined) return context.undefined;
        if (typeof arg !== "string") return arg;
        const handle = context.newString(arg);
        owned.push(handle);
        return handle;
      });
      return context.callFunction(this.helper(name), context.undefined, handles);
    } finally {
      for (const handle of owned) handle.dispose();
    }
  }

  /** Reads a helper's string result (or undefined); disposes the result either way. */
  takeString(handle: QuickJSHandle): string | undefined {
    try {
      return this.context.typeof(handle) === "string" ? this.context.getString(handle) : undefined;
    } finally {
      handle.dispose();
    }
  }

  dispose(): void {
    for (const handle of this.helpers.values()) if (handle.alive) handle.dispose();
    this.helpers.clear();
    if (this.context.alive) this.context.dispose();
    if (this.runtime.alive) this.runtime.dispose();
  }

  private helper(name: HelperName): QuickJSHandle {
    const handle = this.helpers.get(name);
    if (!handle) throw new Error(`sandbox helper ${name} is missing`);
    return handle;
  }
}

function installPrelude(
  context: QuickJSContext,
  host: SandboxCallbacks,
  helpers: Map<HelperName, QuickJSHandle>,
) {
  const optionalString = (handle: QuickJSHandle) =>
    context.typeof(handle) === "string" ? context.getString(handle) : undefined;
  const bridge = [
    context.newFunction("print", (text) => {
      host.print(context.getString(text));
    }),
    context.newFunction("final_answer", (json) => {
      host.finalAnswer(optionalString(json));
    }),
    context.newFunction("callTool", (name, json) =>
      host.callTool(context.getString(name), context.getString(json)),
    ),
  ];
  try {
    const factory = context.unwrapResult(
      context.evalCode(SANDBOX_PRELUDE, "atrium:prelude", { type: "global" }),
    );
    try {
      const object = context.unwrapResult(context.callFunction(factory, context.undefined, bridge));
      try {
        for (const name of HELPER_NAMES) helpers.set(name, context.getProp(object, name));
      } finally {
        object.dispose();
      }
    } finally {
      factory.dispose();
    }
  } finally {
    for (const handle of bridge) handle.dispose();
  }
}
