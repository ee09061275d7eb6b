import type { Tool } from "@atrium/spec";

/** The one tool the QuickJS rows call (and the code mode peer's `add` does the same). */
export const addTool: Tool<{ a: number; b: number }, number> = {
  name: "add",
  description: "Adds a and b.",
  inputSchema: { type: "object" },
  async execute({ a, b }) {
    return a + b;
  },
};
