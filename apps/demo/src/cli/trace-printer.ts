import { styleText } from "node:util";
import type { AnswerEvent, AssistantEvent } from "../assistant/assistant-events.js";

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
  /**
   * Every event in full (`--verbose`): each step's code, each docs command with the start of its
   * output, every observation. Without it the trace of a question fits in `QUESTION_LINES`.
   */
  verbose?: boolean;
  /** Verbose: lines of a docs command's output or an observation shown before "… N more lines". */
  maxLines?: number;
}

/**
 * The default trace's lines per question, the blank line and the question's line included; the
 * answer's own text is printed whole and, when it is one line (as the scripted model's is), fits.
 */
export const QUESTION_LINES = 20;
/** Compact trace: docs commands listed per step before "… N more docs commands". */
const COMMANDS_SHOWN = 2;
/** Compact trace: lines of an observation shown (the last one says how many more there are). */
const OBSERVATION_LINES = 2;
/** Longest line shown (a longer one is cut with "…"); the answer's text is never cut. */
const LINE_CHARS = 160;

/**
 * The step trace a person reads. By default (compact) it shows, per question, each step's thought,
 * its first docs commands, the start of what the step printed, then the answer with its cited pages
 * and where the time went, in at most `QUESTION_LINES` lines. `verbose` shows every event: the
 * code, every docs command with the start of its output, other tool calls, each observation.
 */
export function tracePrinter(
  write: (text: string) => void,
  options: TraceOptions,
): (event: AssistantEvent) => void {
  return options.verbose ? verbosePrinter(write, options) : compactPrinter(write, options);
}

function painter(color: boolean) {
  return (style: Style, text: string) => (color ? styleText(style, text, { validateStream: false }) : text);
}

const cut = (line: string) => (line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line);

function answerLines(
  paint: ReturnType<typeof painter>,
  event: AnswerEvent,
): { text: string; sources: string[]; timing: string } {
  const t = event.timing;
  return {
    text: event.answer || paint("red", `(no answer: the run ended in state ${event.state})`),
    sources: event.citations.map((citation) => {
      const mark = citation.verified ? paint("green", "✓") : paint("red", "✗ not seen in any tool output");
      return `    ${paint("bold", "source:")} ${citation.path} ${mark}`;
    }),
    timing: paint(
      "dim",
      `  ${event.state}, ${event.steps} steps, ${(t.totalMs / 1000).toFixed(2)} s (docs ${t.retrievalMs.toFixed(0)} ms, memory ${t.memoryMs.toFixed(0)} ms, sandbox ${t.executionMs.toFixed(0)} ms, model ${t.modelMs.toFixed(0)} ms)`,
    ),
  };
}

function questionLine(
  paint: ReturnType<typeof painter>,
  event: Extract<AssistantEvent, { type: "question" }>,
): string {
  return `\n${paint(["bold", "blue"], `❓ ${event.question}`)}  ${paint("dim", `(user ${event.user}, model ${event.model})`)}\n`;
}

/**
 * The compact trace. Each question has a budget of `QUESTION_LINES`; the answer's lines (its text,
 * one line of cited pages and the timing) are kept back from it, and once the
 * steps would eat into them the rest of the steps is one "… --verbose" line.
 */
function compactPrinter(
  write: (text: string) => void,
  options: TraceOptions,
): (event: AssistantEvent) => void {
  const paint = painter(options.color);
  const answerReserve = 3;
  let used = 0;
  let elided = false;
  let step = 0;
  let commandsThisStep = 0;
  let hiddenCommands = 0;
  let answering = false;
  /** Prints lines of the steps while the budget lasts (one line is kept for the "cut" note). */
  const emit = (lines: string[]) => {
    if (elided) return;
    if (used + lines.length > QUESTION_LINES - answerReserve - 1) {
      elided = true;
      used++;
      write(`${paint("dim", "  … the rest of the steps: run with --verbose for the whole trace")}\n`);
      return;
    }
    used += lines.length;
    write(`${lines.join("\n")}\n`);
  };
  const flushCommands = () => {
    if (hiddenCommands > 0)
      emit([paint("dim", `  $ … ${hiddenCommands} more docs command${hiddenCommands === 1 ? "" : "s"}`)]);
    hiddenCommands = 0;
  };
  return (event) => {
    if (event.type !== "docs-command" && event.type !== "tool-call" && event.type !== "tool-result")
      flushCommands();
    switch (event.type) {
      case "question":
        used = 2;
        elided = false;
        step = 0;
        write(questionLine(paint, event));
        break;
      case "memory-recalled": {
        // Nothing recalled shows nothing here (--verbose says "0").
        if (event.memories.length === 0) break;
        const how = event.via === "tool" ? "the agent recalled" : "recalled for the question";
        const first = event.memories[0]?.content.split("\n")[0];
        emit([
          paint(
            "magenta",
            cut(
              `  memory: ${how}: ${event.memories.length}${first === undefined ? "" : ` (${JSON.stringify(first)}${event.memories.length > 1 ? ", …" : ""})`}`,
            ),
          ),
        ]);
        break;
      }
      case "memory-filed":
        emit([
          paint(
            "magenta",
            event.via === "transcript"
              ? `  memory: filed this session's transcript (${event.ids.length} turns)`
              : cut(
                  `  memory: filed ${event.ids.length}${event.memories?.[0] ? ` (${JSON.stringify(event.memories[0].content)})` : ""}`,
                ),
          ),
        ]);
        break;
      case "step-start":
        step = event.step;
        commandsThisStep = 0;
        answering = false;
        break;
      case "model-output": {
        const thought = /^Thought:\s*(.*)$/m.exec(event.text)?.[1];
        if (thought) emit([`${paint("bold", `  ━━ Step ${step} ━━`)} ${paint("dim", cut(thought))}`]);
        break;
      }
      case "code":
        // The step's closing call: its observation repeats the answer printed next.
        answering = /\bfinal_answer\s*\(/.test(event.code);
        break;
      case "docs-command": {
        commandsThisStep++;
        if (commandsThisStep > COMMANDS_SHOWN) {
          hiddenCommands++;
          break;
        }
        const status = event.exitCode === 0 ? "" : paint("red", ` (exit ${event.exitCode})`);
        emit([
          `  ${paint(["bold", "yellow"], "$")} ${paint("yellow", cut(event.command))}${status} ${paint("dim", `${event.durationMs.toFixed(0)} ms`)}`,
        ]);
        break;
      }
      case "tool-call":
        // Docs commands have their own line, memory tools their "memory:" line; MCP tools show here.
        if (!QUIET_RESULTS.has(event.name))
          emit([paint("yellow", cut(`  → ${event.name}(${JSON.stringify(event.input)})`))]);
        break;
      case "tool-result":
        if (event.error && !DOCS_TOOLS.has(event.name))
          emit([paint("red", cut(`  ← ${event.name}: ${event.error}`))]);
        break;
      case "observation": {
        if (answering) break;
        // What the step printed, without the framing and the blank and front-matter fence lines.
        const lines = event.text
          .replace(/^Execution logs:\n/, "")
          .split("\n")
          .filter((line) => line.trim() !== "" && line.trim() !== "---");
        const shown = lines.slice(0, OBSERVATION_LINES).map((line) => `    ${line}`);
        shown[0] = `  ${paint("green", "Observation")} ${lines[0] ?? ""}`;
        if (lines.length > OBSERVATION_LINES)
          shown[shown.length - 1] += ` … ${lines.length - OBSERVATION_LINES} more lines`;
        emit(shown.map((line, i) => (i === 0 ? cut(line) : paint("dim", cut(line)))));
        break;
      }
      case "error":
        emit([paint(["bold", "red"], cut(`  ✗ ${event.error.name}: ${event.error.message}`))]);
        break;
      case "answer": {
        const { text, timing } = answerLines(paint, event);
        write(`${paint(["bold", "green"], "  Answer:")} ${text}\n`);
        // The cited pages on one line, so the answer's lines are known before it comes.
        const cited = event.citations.map(
          (c) =>
            `${c.path} ${c.verified ? paint("green", "✓") : paint("red", "✗ not seen in any tool output")}`,
        );
        if (cited.length > 0)
          write(
            `    ${paint("bold", cited.length === 1 ? "source:" : "sources:")} ${cut(cited.join(", "))}\n`,
          );
        write(`${timing}\n`);
        break;
      }
      default:
        break;
    }
  };
}

/** The whole trace (`--verbose`): every event, long outputs cut to their first `maxLines` lines. */
function verbosePrinter(
  write: (text: string) => void,
  options: TraceOptions,
): (event: AssistantEvent) => void {
  const maxLines = options.maxLines ?? 6;
  const paint = painter(options.color);
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
        write(questionLine(paint, event));
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
        const { text, sources, timing } = answerLines(paint, event);
        write(`${paint(["bold", "green"], "  ━━ Answer ━━")}\n`);
        write(`${indent(text)}\n`);
        for (const line of sources) write(`${line}\n`);
        write(`${timing}\n`);
        break;
      }
      default:
        break;
    }
  };
}
