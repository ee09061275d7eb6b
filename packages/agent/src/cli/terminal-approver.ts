import type { AgentEvent, ApprovalDecision, ApprovalHandler, ApprovalRequest } from "@atrium/spec";
import { approvalRequestedLine } from "./approval-lines.js";
import type { TerminalLines } from "./terminal-lines.js";

/** Why a call was refused when the person said no and gave no reason: the model learns who decided. */
export const DENIED_AT_TERMINAL = "denied at the terminal";
/** Why a call was refused when the terminal's input ended (Ctrl-D) before an answer. */
export const TERMINAL_INPUT_ENDED = "no answer: the terminal's input ended";

export interface TerminalApproverOptions {
  lines: TerminalLines;
  /** Where the questions go: the terminal's stderr (stdout is the answer's). */
  write: (text: string) => void;
  /**
   * Print the call before asking: on when no step trace shows its `approval-requested` line
   * (`--quiet`), so the question always says what would run.
   */
  announce: boolean;
}

export interface TerminalApprover {
  /** The run's `onApproval`. */
  readonly handler: ApprovalHandler;
  /**
   * `write` for everything else shown on the terminal (the step trace): a question left
   * unanswered on its line (Ctrl-C) is ended first, so the next line starts on a line of its own.
   */
  readonly write: (text: string) => void;
  /** Feed it the run's events: the `approval-requested` event tells the step of each call. */
  observe(event: AgentEvent): void;
}

/**
 * Asks a person at the terminal about each call that needs approval: y runs it, n refuses it
 * (then a reason, optional, for the model). Questions come one at a time, in the order the calls
 * asked, however many of them the code started at once; a question whose call stopped waiting
 * (the run was interrupted, its wait ran out) is withdrawn.
 */
export function terminalApprover({ lines, write, announce }: TerminalApproverOptions): TerminalApprover {
  const steps = new Map<string, number>();
  let turn: Promise<unknown> = Promise.resolve();
  // A question is on screen and its line not ended: the terminal ends it when the answer is
  // typed (the echo of Enter); otherwise the next write must.
  let questionOpen = false;
  // What was written last, to tell whether the line above a question is its call's.
  let lastText = "";
  const show = (text: string) => {
    write(text);
    lastText = text;
  };
  const endQuestionLine = () => {
    if (questionOpen) show("\n");
    questionOpen = false;
  };
  const question = (text: string) => {
    endQuestionLine();
    show(text);
    questionOpen = true;
  };
  // Lines of the step trace held back while a question waits for its answer: another call's
  // line printed under the question would put the wrong call right above the cursor.
  let asking = false;
  const heldBack: string[] = [];
  const answer = async (signal: AbortSignal) => {
    const line = await lines.next(signal);
    if (line !== undefined) questionOpen = false; // the terminal echoed the Enter
    return line;
  };

  const ask = async (request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> => {
    const step = steps.get(request.toolCallId);
    steps.delete(request.toolCallId);
    // The call is the line right above its question, always: the trace may have printed other
    // calls' lines since this one's.
    const callLine = `${approvalRequestedLine(request.toolName, request.input, step)}\n`;
    if (announce || lastText !== callLine) {
      endQuestionLine();
      show(callLine);
    }
    let prompt = `  Run ${request.toolName}? [y/n] `;
    asking = true;
    try {
      for (;;) {
        question(prompt);
        const word = (await answer(signal))?.trim().toLowerCase();
        if (word === undefined) return { approved: false, reason: TERMINAL_INPUT_ENDED };
        if (word === "y" || word === "yes") return { approved: true };
        if (word === "n" || word === "no") {
          question("  Why not? (optional, told to the model; Enter to skip) ");
          const reason = (await answer(signal))?.trim();
          return { approved: false, reason: reason || DENIED_AT_TERMINAL };
        }
        prompt = `  Please answer y (run ${request.toolName}) or n (refuse it): `;
      }
    } finally {
      // Ctrl-D, or the call stopped waiting (Ctrl-C, the approval's time limit).
      endQuestionLine();
      asking = false;
      for (const text of heldBack.splice(0)) show(text);
    }
  };

  return {
    write(text) {
      if (asking) {
        heldBack.push(text);
        return;
      }
      endQuestionLine();
      show(text);
    },
    observe(event) {
      if (event.type === "approval-requested") steps.set(event.id, event.step);
    },
    handler(request, signal) {
      const answered = turn.then(() =>
        signal.aborted ? Promise.reject(signal.reason) : ask(request, signal),
      );
      turn = answered.catch(() => undefined);
      return answered;
    },
  };
}

/** `--approve-all`: every call runs, unasked; the trace still shows each one. */
export const approveEverything: ApprovalHandler = () => ({ approved: true });
