import type { CodeLanguage, Tool } from "@atrium/spec";
import { toolSignature } from "./tool-signatures.js";

export interface CodeAgentPromptInput {
  language: CodeLanguage;
  tools: readonly Tool[];
  /** The opening and closing tags of a code block, as the model must write them. */
  open: string;
  close: string;
  /** What the sandbox can and cannot do, one line each. */
  capabilities: readonly string[];
  /** Extra instructions from the developer, appended verbatim. */
  instructions?: string;
}

type PromptLanguage = "javascript" | "python";

interface LanguageWords {
  name: string;
  comment: string;
  print: string;
  persistence: string;
  toolCall: string;
}

const WORDS: Record<PromptLanguage, LanguageWords> = {
  javascript: {
    name: "JavaScript",
    comment: "//",
    print: "console.log(...)",
    persistence:
      "Variables, functions and classes you declare at the top level persist between steps, like cells of a notebook. Top-level `await` works.",
    toolCall:
      "Tools are async functions taking one object argument: `const r = await tool_name({ field: value })`.",
  },
  python: {
    name: "Python",
    comment: "#",
    print: "print(...)",
    persistence:
      "Variables, functions and imports you define persist between steps, like cells of a notebook.",
    toolCall: "Tools are functions taking keyword arguments: `r = tool_name(field=value)`.",
  },
};

interface ExampleStep {
  thought: string;
  code: Record<PromptLanguage, string>;
  /** What came back, as the model will see it; absent for the last step. */
  observation?: string | Record<PromptLanguage, string>;
}

/** Worked examples: chaining through printed results, and inspecting data of unknown shape. */
const EXAMPLES: { task: string; steps: ExampleStep[] }[] = [
  {
    task: "What is the population of the largest city of France, times two?",
    steps: [
      {
        thought: "I will look up the largest city first and print it, since I need it in the next step.",
        code: {
          javascript: 'const city = await search({ query: "largest city of France" });\nconsole.log(city);',
          python: 'city = search(query="largest city of France")\nprint(city)',
        },
        observation: "Execution logs:\nParis",
      },
      {
        thought: "Now its population; then I can compute and answer.",
        code: {
          javascript:
            'const population = await population_of({ city: "Paris" });\nfinal_answer(population * 2);',
          python: 'population = population_of(city="Paris")\nfinal_answer(population * 2)',
        },
      },
    ],
  },
  {
    task: "Which of the three most recent orders cost the most?",
    steps: [
      {
        thought: "I do not know what an order looks like; I will print one before using it.",
        code: {
          javascript: "const orders = await list_orders({ limit: 3 });\nconsole.log(orders[0]);",
          python: "orders = list_orders(limit=3)\nprint(orders[0])",
        },
        observation: {
          javascript: "Execution logs:\n{ id: 'A17', total_cents: 4200 }",
          python: "Execution logs:\n{'id': 'A17', 'total_cents': 4200}",
        },
      },
      {
        thought: "Each order has total_cents; I pick the largest.",
        code: {
          javascript:
            "const top = orders.reduce((a, b) => (b.total_cents > a.total_cents ? b : a));\nfinal_answer(top.id);",
          python: 'top = max(orders, key=lambda o: o["total_cents"])\nfinal_answer(top["id"])',
        },
      },
    ],
  },
];

function renderExamples(language: PromptLanguage, block: (code: string) => string): string {
  return EXAMPLES.map(({ task, steps }) =>
    [
      `Task: "${task}"`,
      ...steps.flatMap((step) => [
        "",
        `Thought: ${step.thought}`,
        block(step.code[language]),
        ...(step.observation
          ? [
              `Observation:\n${typeof step.observation === "string" ? step.observation : step.observation[language]}`,
            ]
          : []),
      ]),
    ].join("\n"),
  ).join("\n\n---\n\n");
}

/**
 * The system prompt of a code agent: how to act (thought, then one code block), the tools as
 * typed signatures, what the sandbox allows, rules learned from agents' common failures, and
 * a worked example in the sandbox's language.
 */
export function codeAgentSystemPrompt(input: CodeAgentPromptInput): string {
  const language: PromptLanguage = input.language === "python" ? "python" : "javascript";
  const words = WORDS[language];
  const block = (code: string) => `${input.open}\n${code}\n${input.close}`;
  const tools = input.tools.length
    ? input.tools.map((tool) => toolSignature(tool, input.language)).join("\n\n")
    : `${words.comment} (no tools besides final_answer)`;
  const finalAnswerSignature =
    input.language === "python"
      ? 'def final_answer(answer: Any) -> None:\n    """Ends the task with this answer."""'
      : "/** Ends the task with this answer (any JSON-compatible value). */\nfunction final_answer(answer: unknown): never;";

  const sections = [
    `You are an expert assistant who solves tasks by writing ${words.name} code. You work in steps. In each step, first write "Thought:" and your reasoning in one or two sentences, then exactly one code block, opened with ${input.open} and closed with ${input.close}. Stop after the code block.`,
    `The code runs in a sandbox. What it prints with ${words.print} and the value of its last expression come back to you as "Observation:" in the next message. ${words.persistence} When you have the answer, call final_answer(answer) in a code block.`,
    `Functions you can call:\n${block(`${tools}\n\n${finalAnswerSignature}`)}\n${words.toolCall}`,
    `The sandbox:\n${input.capabilities.map((line) => `- ${line}`).join("\n")}`,
    [
      "Rules:",
      `1. Always reply with "Thought:" and one code block; a reply without a code block is wasted.`,
      "2. Use only variables you have defined and the functions listed above.",
      "3. When a tool's output has an unknown shape, print it and use it in the next step rather than guessing.",
      "4. Do not call many tools in a chain whose outputs you cannot check; print intermediate results.",
      "5. Never reuse a tool's name or final_answer as a variable name.",
      "6. If a step fails, read the error and its line, fix that, and try something different rather than repeating it.",
      "7. Never give up: the task must be solved, and final_answer must be called with the answer.",
    ].join("\n"),
    `Examples (their tools are made up; use only the functions listed above):\n\n${renderExamples(language, block)}`,
  ];
  if (input.instructions?.trim())
    sections.push(`Instructions from the developer:\n${input.instructions.trim()}`);
  return sections.join("\n\n");
}

/** What the QuickJS sandbox allows; listed in the prompt so the model does not try the rest. */
export const JAVASCRIPT_SANDBOX_CAPABILITIES: readonly string[] = [
  "Standard JavaScript built-ins: Math, JSON, Date, RegExp, Map, Set, Promise, typed arrays, string and array methods.",
  "No require, import, process, fetch, timers, network or filesystem: reach the outside world only through the functions above.",
  "Values returned from tools and passed to final_answer must be JSON-compatible data.",
  "Each step has a time and memory limit; long loops are interrupted.",
];

export const PYTHON_SANDBOX_CAPABILITIES: readonly string[] = [
  "The Python standard library that the sandbox ships; no network, no host filesystem, no subprocesses.",
  "Reach the outside world only through the functions above.",
  "Each step has a time and memory limit; long loops are interrupted.",
];
