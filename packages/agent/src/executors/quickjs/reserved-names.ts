/** Globals the executor defines itself; code, tools and variables may not take these names. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(["final_answer", "console", "globalThis"]);
