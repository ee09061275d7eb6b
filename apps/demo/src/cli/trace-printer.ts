import { styleText } from "node:util";
import type { AssistantEvent } from "../assistant/assistant-events.js";

type Style = Parameters<typeof styleText>[0];

const DOCS_TOOLS = new Set(["bash", "search"]);
/** Tools whose results the trace shows otherwise: docs commands, and the palace's memory tools. */
const QUIET_RESULTS = new Set([
  ...DOCS_TOOLS,
  "recall",
  "remember",
  "kg_query",
  "kg_add",
  "diary_write",
  "diary_read",
]);

export interface TraceOptions {
  color: boolean;
  /** Lines of a docs command's output or an observation shown before "… N more lines". */
  maxLines?: number;
}

/**
 * The step trace a person reads: each step's thought, the code, every docs command with the
 * start of its output, other tool calls, the observation, then the answer with its cited pages
 * and where the time went.
 */
export function tracePrinter(
  write: (text: string) => void,
  options: TraceOptions,
): (event: AssistantEvent) => void {
  const maxLines = options.maxLines ?? 6;
  const paint = (style: Style, text: string) =>
    options.color ? styleText(style, text, { validateStream: false }) : text;
  const indent = (text: string, by = "    ") => text.replace(/^/gm, by);
  const head = (text: string, keep = maxLines) => {
    const lines = text.replace(/\n$/, "").split("\n");
    const shown = lines.slice(0, keep).map((line) => (line.length > 160 ? `${line.slice(0, 160)}…` : line));
    if (lines.length > keep) shown.push(`… ${lines.length - keep} more lines`);
    return shown.join("\n");
  };
  return (event) => {
    switch (event.type) {
      case "question":
        write(
          `\n${paint(["bold", "blue"], `❓ ${event.question}`)}  ${paint("dim", `(user ${event.user}, model ${event.model})`)}\n`,
        );
        break;
      case "memory-recalled": {
        const how = event.via === "tool" ? "the agent recalled" : "recalled for the question";
        write(
          `${paint("magenta", `  memory: ${how}: ${event.memories.length} ${paint("dim", `${event.durationMs.toFixed(0)} ms`)}`)}\n`,
        );
        for (const memory of event.memories) write(`${paint("magenta", indent(head(memory.content)))}\n`);
        break;
      }
      case "memory-filed":
        if (event.via === "transcript") {
          write(
            `${paint("magenta", `  memory: filed this session's transcript (${event.ids.length} turns, session ${event.sessionId}) ${paint("dim", `${event.durationMs.toFixed(0)} ms`)}`)}\n`,
          );
        } else {
          write(`${paint("magenta", `  memory: filed ${event.ids.length}`)}\n`);
          for (const memory of event.memories ?? [])
            write(`${paint("magenta", indent(head(memory.content)))}\n`);
        }
        break;
      case "step-start":
        write(`${paint("bold", `  ━━ Step ${event.step} ━━`)}\n`);
        break;
      case "model-output": {
        const thought = /^Thought:\s*(.*)$/m.exec(event.text)?.[1];
        if (thought) write(`${paint("dim", `  ${thought}`)}\n`);
        break;
      }
      case "code":
        write(`${paint("cyan", indent(head(event.code.trim(), maxLines * 2), "  │ "))}\n`);
        break;
      case "docs-command": {
        const status = event.exitCode === 0 ? "" : paint("red", ` (exit ${event.exitCode})`);
        write(
          `  ${paint(["bold", "yellow"], "$")} ${paint("yellow", event.command)}${status} ${paint("dim", `${event.durationMs.toFixed(0)} ms`)}\n`,
        );
        if (event.stdout) write(`${paint("dim", indent(head(event.stdout)))}\n`);
        if (event.stderr) write(`${paint("red", indent(head(event.stderr)))}\n`);
        break;
      }
      case "tool-call":
        // Docs commands have their own line; other tools (memory, MCP) show their call here.
        if (!DOCS_TOOLS.has(event.name)) {
          write(`  ${paint("yellow", `→ ${event.name}(${JSON.stringify(event.input)})`)}\n`);
        }
        break;
      case "tool-result":
        // A memory tool's result shows as its memory line (a failure shows here).
        if (!QUIET_RESULTS.has(event.name) || (event.error && !DOCS_TOOLS.has(event.name))) {
          const shown =
            event.error ?? (typeof event.output === "string" ? event.output : JSON.stringify(event.output));
          write(`  ${paint(event.error ? "red" : "yellow", `← ${event.name}: ${head(shown ?? "")}`)}\n`);
        }
        break;
      case "observation":
        write(`  ${paint("green", "Observation")}\n${paint("dim", indent(head(event.text)))}\n`);
        break;
      case "error":
        write(`  ${paint(["bold", "red"], `✗ ${event.error.name}: ${event.error.message}`)}\n`);
        break;
      case "answer": {
        const t = event.timing;
        write(`${paint(["bold", "green"], "  ━━ Answer ━━")}\n`);
        write(
          `${indent(event.answer || paint("red", `(no answer: the run ended in state ${event.state})`))}\n`,
        );
        for (const citation of event.citations) {
          const mark = citation.verified
            ? paint("green", "✓")
            : paint("red", "✗ not seen in any tool output");
          write(`    ${paint("bold", "source:")} ${citation.path} ${mark}\n`);
        }
        write(
          `${paint("dim", `  ${event.state}, ${event.steps} steps, ${(t.totalMs / 1000).toFixed(2)} s (docs ${t.retrievalMs.toFixed(0)} ms, memory ${t.memoryMs.toFixed(0)} ms, sandbox ${t.executionMs.toFixed(0)} ms, model ${t.modelMs.toFixed(0)} ms)`)}\n`,
        );
        break;
      }
      default:
        break;
    }
  };
}
