import { CODE_DIALECTS } from "@atrium/agent";
import { JAVASCRIPT_STEPS } from "./javascript.js";
import { PYTHON_STEPS } from "./python.js";
import type { StepWriter } from "./step-writer.js";

/** The languages the scripted docs model writes, by the executor language they run on. */
export const STEP_WRITERS: readonly StepWriter[] = [JAVASCRIPT_STEPS, PYTHON_STEPS];

/**
 * The language to write in, read from the system prompt as a real model reads it: the code agent
 * renders its prompt in the dialect of its executor's declared language ("… by writing Python
 * code …", tool signatures as `def`s). Undefined when the prompt asks for a language the scripted
 * model does not write (or there is no code agent prompt).
 */
export function writerForPrompt(system: string): StepWriter | undefined {
  return STEP_WRITERS.find((writer) => {
    const dialect = CODE_DIALECTS[writer.language];
    return dialect !== undefined && system.includes(`by writing ${dialect.name} code`);
  });
}
