/**
 * The fixed user-side prompts of the loop: planning, the closing call after max steps, extra
 * variables and managed-agent tasks. Kept together so their wording can be read as a whole.
 */

export const END_PLAN = "<end_plan>";

export function initialPlanPrompt(task: string): string {
  return [
    "Before acting, write a plan for the task below.",
    "First list the facts: those given in the task, those to look up, and those to derive.",
    "Then write a short numbered plan, one line per step, using the available functions. Do not write code.",
    `End the plan with ${END_PLAN}.`,
    "",
    `Task:\n${task}`,
  ].join("\n");
}

export function updatePlanPrompt(task: string, stepsLeft: number): string {
  return [
    "Pause and update your plan in light of what you have learned so far.",
    "List the facts now known and those still missing; then write a short numbered plan for the remaining work.",
    `You have ${stepsLeft} step${stepsLeft === 1 ? "" : "s"} left. Do not write code. End the plan with ${END_PLAN}.`,
    "",
    `Task (unchanged):\n${task}`,
  ].join("\n");
}

export function closingPrompt(task: string): string {
  return [
    "You have used all your steps. Based only on the conversation above, give your final answer to the task now.",
    "Answer directly in plain text: no code block, no tool calls. If you could not find everything, give the best answer you can and say what is uncertain.",
    "",
    `Task:\n${task}`,
  ].join("\n");
}

export function rejectedAnswerNote(reason: string): string {
  return `Your final answer was rejected: ${reason}\nKeep working on the task and call final_answer again when the answer meets this.`;
}

export function variablesNote(names: readonly string[], previews: readonly string[]): string {
  return [
    "You have been given these variables, already defined in your environment:",
    ...names.map((name, i) => `- ${name}: ${previews[i]}`),
  ].join("\n");
}

export function managedAgentTask(name: string, task: string): string {
  return [
    `You are '${name}', an agent working for a manager agent that gave you this task:`,
    task,
    "",
    "Your final answer is all the manager will see: make it complete and self-contained, with the result first and any useful detail or uncertainty after it.",
  ].join("\n");
}
