import type { CodeLanguage, Tool } from "@atrium/spec";
import type { CodeDialect, PromptExample } from "../dialects/code-dialect.js";
import { dialectFor } from "../dialects/dialect-for.js";
import { JAVASCRIPT_DIALECT } from "../dialects/javascript.js";
import { PYTHON_DIALECT } from "../dialects/python.js";

export interface CodeAgentPromptInput {
  language: CodeLanguage;
  /** The dialect to speak; defaults to the one for `language`. */
  dialect?: CodeDialect;
  tools: readonly Tool[];
  /** The opening and closing tags of a code block, as the model must write them. */
  open: string;
  close: string;
  /** What the sandbox can and cannot do, one line each. */
  capabilities: readonly string[];
  /** Extra instructions from the developer, appended verbatim. */
  instructions?: string;
}

function renderExamples(examples: readonly PromptExample[], block: (code: string) => string): string {
  return examples
    .map(({ task, steps }) =>
      [
        `Task: "${task}"`,
        ...steps.flatMap((step) => [
          "",
          `Thought: ${step.thought}`,
          block(step.code),
          ...(step.observation ? [`Observation:\n${step.observation}`] : []),
        ]),
      ].join("\n"),
    )
    .join("\n\n---\n\n");
}

/**
 * The system prompt of a code agent: how to act (thought, then one code block), the tools as
 * typed signatures, what the sandbox allows, rules learned from agents' common failures, and
 * worked examples, all in the dialect of the sandbox's language.
 */
export function codeAgentSystemPrompt(input: CodeAgentPromptInput): string {
  const dialect = input.dialect ?? dialectFor(input.language);
  const block = (code: string) => `${input.open}\n${code}\n${input.close}`;
  const tools = input.tools.length
    ? input.tools.map((tool) => dialect.toolSignature(tool)).join("\n\n")
    : `${dialect.lineComment} (no tools besides final_answer)`;

  const sections = [
    `You are an expert assistant who solves tasks by writing ${dialect.name} code. You work in steps. In each step, first write "Thought:" and your reasoning in one or two sentences, then exactly one code block, opened with ${input.open} and closed with ${input.close}. Stop after the code block.`,
    `The code runs in a sandbox. What it prints with ${dialect.print} and the value of its last expression come back to you as "Observation:" in the next message. ${dialect.persistence} When you have the answer, call final_answer(answer) in a code block.`,
    `Functions you can call:\n${block(`${tools}\n\n${dialect.finalAnswerSignature}`)}\n${dialect.toolCall}`,
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
    `Examples (their tools are made up; use only the functions listed above):\n\n${renderExamples(dialect.examples, block)}`,
  ];
  if (input.instructions?.trim())
    sections.push(`Instructions from the developer:\n${input.instructions.trim()}`);
  return sections.join("\n\n");
}

/** What the QuickJS sandbox allows; listed in the prompt so the model does not try the rest. */
export const JAVASCRIPT_SANDBOX_CAPABILITIES: readonly string[] = JAVASCRIPT_DIALECT.sandboxCapabilities;

export const PYTHON_SANDBOX_CAPABILITIES: readonly string[] = PYTHON_DIALECT.sandboxCapabilities;
