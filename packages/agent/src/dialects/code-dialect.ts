import type { CodeLanguage, Tool } from "@atrium/spec";

/** One step of a worked example: the thought, the code, and what came back (none for the last). */
export interface ExampleStep {
  thought: string;
  code: string;
  observation?: string;
}

/** A worked example shown in the system prompt; its tools are made up. */
export interface PromptExample {
  task: string;
  steps: readonly ExampleStep[];
}

/**
 * Everything a CodeAgent says or parses that depends on the sandbox's language: how the prompt
 * tells the model to write code, the worked examples, which fences count as code, and how tools
 * look as functions. The CodeAgent picks one by its executor's language; the rules, sections and
 * observations around them are the same in every language.
 */
export interface CodeDialect {
  readonly language: CodeLanguage;
  /** The language as the prompt names it ("JavaScript"). */
  readonly name: string;
  /** Markdown fence labels: the one the prompt shows, and every one accepted in a reply. */
  readonly fence: { readonly shown: string; readonly accepted: readonly string[] };
  /** Starts a line comment ("//", "#"). */
  readonly lineComment: string;
  /** How code prints, as the prompt names it. */
  readonly print: string;
  /** What persists between steps. */
  readonly persistence: string;
  /** How a tool is called, with an example call. */
  readonly toolCall: string;
  /** The declaration of `final_answer`, listed after the tools. */
  readonly finalAnswerSignature: string;
  /** What a sandbox of this language allows, one line each; an agent's `capabilities` option overrides it. */
  readonly sandboxCapabilities: readonly string[];
  readonly examples: readonly PromptExample[];
  /** A tool as a documented, typed function declaration in this language. */
  toolSignature(tool: Tool): string;
}
