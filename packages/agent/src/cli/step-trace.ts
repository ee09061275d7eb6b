import { styleText } from "node:util";
import type { AgentEvent } from "@atrium/spec";
import { formatValue } from "../agents/observation.js";
import { approvalRequestedLine, approvalResolvedLine } from "./approval-lines.js";
import { describeImages } from "./image-summary.js";

type Style = Parameters<typeof styleText>[0];

/** True when colours help: a terminal, and the user has not opted out with NO_COLOR. */
export function wantsColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== "dumb";
}

const PREVIEW_CHARS = 2_000;

/**
 * Renders agent events as a readable step trace: each step's model reply, the code that ran,
 * tool calls and results, the observation, and the final answer.
 */
export function stepTracePrinter(write: (text: string) => void, color: boolean): (event: AgentEvent) => void {
  // The decision is ours (wantsColor looks at the stream we write to), so styleText must not
  // second-guess it by looking at stdout.
  const paint = (style: Style, text: string) =>
    color ? styleText(style, text, { validateStream: false }) : text;
  const indent = (text: string) => text.replace(/^/gm, "  ");
  const clip = (text: string) => (text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)} …` : text);
  let streamed = false;
  // A finished reply waits for the next event: if that is "planning", the reply was the plan and
  // is printed once, under its heading.
  let pending: string | undefined;
  let pendingWasStreamed = false;
  const flush = () => {
    if (pending?.trim()) write(`${paint("dim", indent(clip(pending.trim())))}\n`);
    pending = undefined;
  };
  return (event) => {
    if (event.type === "planning") {
      const heading = paint(["bold", "magenta"], "Plan");
      write(pendingWasStreamed ? `${heading} (above)\n` : `${heading}\n${indent(event.plan)}\n`);
      pending = undefined;
      pendingWasStreamed = false;
      return;
    }
    flush();
    pendingWasStreamed = false;
    switch (event.type) {
      case "run-start":
        if (event.images?.length) write(`${paint("dim", describeImages(event.images))}\n`);
        break;
      case "step-start":
        write(`${paint("bold", `━━ Step ${event.step} ━━`)}\n`);
        break;
      case "model-delta":
        // Shown as it arrives; model-output then only ends the line.
        write(paint("dim", `${streamed ? "" : "  "}${event.text.replace(/\n/g, "\n  ")}`));
        streamed = true;
        break;
      case "model-output":
        if (streamed) write("\n");
        else pending = event.text;
        pendingWasStreamed = streamed;
        streamed = false;
        break;
      case "code":
        write(`${paint(["bold", "cyan"], `▶ ${event.language}`)}\n${paint("cyan", indent(event.code))}\n`);
        break;
      case "tool-call":
        write(`${paint("yellow", `→ ${event.name}(${clip(JSON.stringify(event.input) ?? "")})`)}\n`);
        break;
      case "tool-result":
        write(
          event.error === undefined
            ? `${paint("yellow", `← ${event.name}: ${clip(formatValue(event.output))}`)}\n`
            : `${paint("red", `← ${event.name} failed: ${event.error}`)}\n`,
        );
        break;
      case "approval-requested":
        write(`${paint("yellow", approvalRequestedLine(event.name, event.input, event.step))}\n`);
        break;
      case "approval-resolved":
        write(
          `${paint(event.approved ? "green" : "red", approvalResolvedLine(event.name, event.approved, event.reason))}\n`,
        );
        break;
      case "observation":
        write(`${paint("green", "Observation")}\n${indent(clip(event.text))}\n`);
        break;
      case "step-end": {
        const tokens = `${event.usage.inputTokens} in / ${event.usage.outputTokens} out tokens`;
        const error = event.error ? paint("red", ` ✗ ${event.error.code}`) : "";
        write(`${paint("dim", `  (${(event.durationMs / 1000).toFixed(2)} s, ${tokens})`)}${error}\n`);
        break;
      }
      case "final-answer":
        write(`${paint(["bold", "green"], "━━ Final answer ━━")}\n`);
        break;
      case "error":
        write(`${paint(["bold", "red"], `✗ ${event.error.name}: ${event.error.message}`)}\n`);
        break;
      case "run-end": {
        const summary = `${event.state} after ${event.steps} step${event.steps === 1 ? "" : "s"}, ${event.usage.inputTokens} in / ${event.usage.outputTokens} out tokens, ${(event.durationMs / 1000).toFixed(2)} s`;
        write(`${paint(event.state === "success" ? "dim" : "yellow", summary)}\n`);
        break;
      }
      default:
        break;
    }
  };
}
