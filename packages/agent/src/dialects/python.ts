import type { Tool } from "@atrium/spec";
import type { CodeDialect } from "./code-dialect.js";
import { inputFields } from "./input-fields.js";
import { PYTHON_TYPES, renderType } from "./json-schema-types.js";

/** A tool as a Python function with keyword arguments and a Google-style docstring. */
export function pythonSignature(tool: Tool): string {
  // Python wants parameters with defaults after those without.
  const fields = inputFields(tool.inputSchema).sort((a, b) => Number(b.required) - Number(a.required));
  const params = fields.map((field) => {
    const type = renderType(field.type, PYTHON_TYPES);
    return field.required ? `${field.name}: ${type}` : `${field.name}: ${type} | None = None`;
  });
  const output = tool.outputSchema ? renderType(tool.outputSchema, PYTHON_TYPES) : "Any";
  const described = fields.filter((field) => field.description);
  const doc = [
    ...tool.description.trim().split("\n"),
    ...(described.length
      ? ["", "Args:", ...described.map((field) => `    ${field.name}: ${field.description}`)]
      : []),
  ];
  const body = ['"""', ...doc, '"""'].map((line) => (line ? `    ${line}` : ""));
  return [`def ${tool.name}(${params.join(", ")}) -> ${output}:`, ...body].join("\n");
}

/**
 * Python, the language models write best, for the executors that run it (Python in
 * WebAssembly, a micro-VM): tools are functions with keyword arguments.
 */
export const PYTHON_DIALECT: CodeDialect = {
  language: "python",
  name: "Python",
  fence: { shown: "py", accepted: ["py", "python", "python3"] },
  lineComment: "#",
  print: "print(...)",
  persistence: "Variables, functions and imports you define persist between steps, like cells of a notebook.",
  toolCall: "Tools are functions taking keyword arguments: `r = tool_name(field=value)`.",
  finalAnswerSignature: 'def final_answer(answer: Any) -> None:\n    """Ends the task with this answer."""',
  sandboxCapabilities: [
    "The Python standard library that the sandbox ships; no network, no host filesystem, no subprocesses.",
    "Reach the outside world only through the functions above.",
    "Each step has a time and memory limit; long loops are interrupted.",
  ],
  // The JavaScript dialect's examples, step for step, in Python.
  examples: [
    {
      task: "What is the population of the largest city of France, times two?",
      steps: [
        {
          thought: "I will look up the largest city first and print it, since I need it in the next step.",
          code: 'city = search(query="largest city of France")\nprint(city)',
          observation: "Execution logs:\nParis",
        },
        {
          thought: "Now its population; then I can compute and answer.",
          code: 'population = population_of(city="Paris")\nfinal_answer(population * 2)',
        },
      ],
    },
    {
      task: "Which of the three most recent orders cost the most?",
      steps: [
        {
          thought: "I do not know what an order looks like; I will print one before using it.",
          code: "orders = list_orders(limit=3)\nprint(orders[0])",
          observation: "Execution logs:\n{'id': 'A17', 'total_cents': 4200}",
        },
        {
          thought: "Each order has total_cents; I pick the largest.",
          code: 'top = max(orders, key=lambda o: o["total_cents"])\nfinal_answer(top["id"])',
        },
      ],
    },
  ],
  toolSignature: pythonSignature,
};
