import { resolveModel } from "@atrium/agent";
import type { Model } from "@atrium/spec";
import type { DemoLimits } from "../limits.js";
import { scriptedDocsModel } from "./scripted-docs-model.js";

export interface DemoModel {
  model: Model;
  /** True for the scripted docs model: the screen must say so. */
  scripted: boolean;
  /** One line for the screen: which model answers, and how to use another. */
  banner: string;
}

/**
 * `ATRIUM_MODEL` (`openai:…`, `anthropic:…`, `ollama:…`, `openai-compatible:URL#model`) through
 * the agent package's resolution, which checks the string and the provider's key and says what
 * to set; without it, the scripted docs model.
 */
export function resolveDemoModel(
  env: NodeJS.ProcessEnv = process.env,
  limits: Partial<DemoLimits> = {},
): DemoModel {
  const wanted = env.ATRIUM_MODEL?.trim();
  if (wanted) {
    return {
      model: resolveModel(wanted, env),
      scripted: false,
      banner: `Model: ${wanted} (from ATRIUM_MODEL)`,
    };
  }
  return {
    model: scriptedDocsModel(limits),
    scripted: true,
    banner:
      "Model: scripted (no ATRIUM_MODEL set). A deterministic stand-in greps the docs for the question's words,\n" +
      "reads the best pages and quotes them; it knows no answers in advance. For a real model, set e.g.\n" +
      "ATRIUM_MODEL=openai:gpt-4o-mini and OPENAI_API_KEY (or anthropic:…, ollama:llama3.2, openai-compatible:URL#model).",
  };
}
