import type { Message } from "@atrium/spec";

/** One scripted CodeAgent reply: a thought and a JavaScript block, as a model would write it. */
export const js = (code: string) => `Thought: next.\n\`\`\`js\n${code}\n\`\`\``;

/** The text of the last message a model was sent (the latest observation). */
export function lastText(messages: Message[]): string {
  const last = messages.at(-1)!;
  return typeof last.content === "string"
    ? last.content
    : last.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}
