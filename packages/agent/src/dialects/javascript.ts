import type { Tool } from "@atrium/spec";
import type { CodeDialect } from "./code-dialect.js";
import { inputFields } from "./input-fields.js";
import { renderType, TYPESCRIPT_TYPES } from "./json-schema-types.js";

/** A tool as a documented, typed async function declaration in TypeScript syntax. */
export function javascriptSignature(tool: Tool): string {
  const input = renderType(tool.inputSchema, TYPESCRIPT_TYPES);
  const output = tool.outputSchema ? renderType(tool.outputSchema, TYPESCRIPT_TYPES) : "unknown";
  const doc = [
    ...tool.description.trim().split("\n"),
    ...inputFields(tool.inputSchema)
      .filter((field) => field.description)
      .map((field) => `@param input.${field.name} ${field.description}`),
  ];
  const comment = ["/**", ...doc.map((line) => ` * ${line}`.trimEnd()), " */"].join("\n");
  return `${comment}\nasync function ${tool.name}(input: ${input}): Promise<${output}>;`;
}

/** JavaScript as the QuickJS executor runs it: top-level await, tools as async functions of one object. */
export const JAVASCRIPT_DIALECT: CodeDialect = {
  language: "javascript",
  name: "JavaScript",
  // Models label JavaScript fences many ways; TypeScript labels are accepted because models
  // write them for plain JavaScript too.
  fence: { shown: "js", accepted: ["js", "javascript", "ts", "typescript", "mjs", "jsx"] },
  lineComment: "//",
  print: "console.log(...)",
  persistence:
    "Variables, functions and classes you declare at the top level persist between steps, like cells of a notebook. Top-level `await` works.",
  toolCall:
    "Tools are async functions taking one object argument: `const r = await tool_name({ field: value })`.",
  finalAnswerSignature:
    "/** Ends the task with this answer (any JSON-compatible value). */\nfunction final_answer(answer: unknown): never;",
  sandboxCapabilities: [
    "Standard JavaScript built-ins: Math, JSON, Date, RegExp, Map, Set, Promise, typed arrays, string and array methods.",
    "No require, import, process, fetch, timers, network or filesystem: reach the outside world only through the functions above.",
    "Values returned from tools and passed to final_answer must be JSON-compatible data.",
    "Each step has a time and memory limit; long loops are interrupted.",
  ],
  // Chaining through printed results, and inspecting data of unknown shape.
  examples: [
    {
      task: "What is the population of the largest city of France, times two?",
      steps: [
        {
          thought: "I will look up the largest city first and print it, since I need it in the next step.",
          code: 'const city = await search({ query: "largest city of France" });\nconsole.log(city);',
          observation: "Execution logs:\nParis",
        },
        {
          thought: "Now its population; then I can compute and answer.",
          code: 'const population = await population_of({ city: "Paris" });\nfinal_answer(population * 2);',
        },
      ],
    },
    {
      task: "Which of the three most recent orders cost the most?",
      steps: [
        {
          thought: "I do not know what an order looks like; I will print one before using it.",
          code: "const orders = await list_orders({ limit: 3 });\nconsole.log(orders[0]);",
          observation: "Execution logs:\n{ id: 'A17', total_cents: 4200 }",
        },
        {
          thought: "Each order has total_cents; I pick the largest.",
          code: "const top = orders.reduce((a, b) => (b.total_cents > a.total_cents ? b : a));\nfinal_answer(top.id);",
        },
      ],
    },
  ],
  toolSignature: javascriptSignature,
};
