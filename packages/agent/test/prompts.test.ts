import { describe, expect, it } from "vitest";
import { z } from "zod";
import { javascriptSignature, pythonSignature } from "../src/prompts/tool-signatures.js";
import { tool } from "../src/tools/index.js";

const search = tool({
  name: "search",
  description: "Searches the web.",
  inputSchema: z.object({
    query: z.string().describe("What to look for."),
    limit: z.number().int().optional().describe("How many results."),
    mode: z.enum(["fast", "deep"]).optional(),
    filters: z.array(z.object({ field: z.string(), value: z.union([z.string(), z.number()]) })).optional(),
    extra: z.record(z.string(), z.boolean()).optional(),
  }),
  outputSchema: z.array(z.object({ title: z.string(), url: z.string() })),
  execute: () => [],
});

describe("tool signatures", () => {
  it("renders a tool as a typed, documented TypeScript declaration", () => {
    expect(javascriptSignature(search)).toBe(
      [
        "/**",
        " * Searches the web.",
        " * @param input.query What to look for.",
        " * @param input.limit How many results.",
        " */",
        'async function search(input: { query: string; limit?: number; mode?: "fast" | "deep"; filters?: { field: string; value: string | number }[]; extra?: Record<string, boolean> }): Promise<{ title: string; url: string }[]>;',
      ].join("\n"),
    );
  });

  it("renders a tool as a Python function with keyword arguments and a docstring", () => {
    expect(pythonSignature(search)).toBe(
      [
        'def search(query: str, limit: int | None = None, mode: Literal["fast"] | Literal["deep"] | None = None, filters: list[dict] | None = None, extra: dict[str, bool] | None = None) -> list[dict]:',
        '    """',
        "    Searches the web.",
        "",
        "    Args:",
        "        query: What to look for.",
        "        limit: How many results.",
        '    """',
      ].join("\n"),
    );
  });
});
