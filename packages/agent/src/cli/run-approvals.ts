import { UsageError } from "@atrium/kit/cli";
import type { AgentEvent, ApprovalHandler } from "@atrium/spec";
import { approveEverything, terminalApprover } from "./terminal-approver.js";
import { TerminalLines } from "./terminal-lines.js";

/** How `run` answers calls that need approval: ask at the terminal, approve all, or (undefined) refuse them. */
export type ApprovalMode = "ask" | "all" | undefined;

export const APPROVE_OPTIONS = {
  approve: {
    type: "boolean",
    help: "ask at the terminal before each tool call that needs approval\n(an MCP tool that may destroy): y runs it, n refuses it;\nneeds a terminal on stdin",
  },
  "approve-all": {
    type: "boolean",
    help: "run every call that needs approval without asking (scripts, CI);\nthe trace still shows each",
  },
} as const;

export const APPROVALS_HELP =
  "Approvals: a tool that needs approval (an MCP tool that may destroy: neither readOnlyHint:\n" +
  'true nor destructiveHint: false, unless its server\'s "approval" in --mcp-config says "always" or\n' +
  '"never") runs only when you answer y to --approve, or with --approve-all. Without either,\n' +
  "such calls are refused and the model is told why. Ctrl-C while a question waits ends the run.";

/**
 * The mode the options ask for. `--approve` needs a person at a terminal: without one on stdin
 * the run would wait for an answer nobody can give, so it is a usage error that names the
 * script's ways instead.
 */
export function approvalMode(
  values: { approve?: boolean; "approve-all"?: boolean },
  stdin: { isTTY?: boolean },
): ApprovalMode {
  if (values.approve && values["approve-all"]) {
    throw new UsageError(
      "--approve asks at the terminal and --approve-all approves unasked; give one of them",
    );
  }
  if (values["approve-all"]) return "all";
  if (!values.approve) return undefined;
  if (stdin.isTTY !== true) {
    throw new UsageError(
      "--approve asks at the terminal, but stdin is not a terminal; in a script, pass --approve-all to run every call that needs approval unasked, or leave both out to refuse those calls",
    );
  }
  return "ask";
}

export interface RunApprovals {
  /** The run's `onApproval`; undefined: calls that need approval are refused. */
  onApproval: ApprovalHandler | undefined;
  /** Sees every event of the run (the terminal's questions name the step). */
  observe(event: AgentEvent): void;
  /** Lets go of the terminal. */
  close(): void;
  /** How the rest of the run writes to the terminal the questions are on. */
  write: (text: string) => void;
}

export function runApprovals(
  mode: ApprovalMode,
  /** `stdin` is a function: taking process.stdin opens the terminal, which only "ask" needs. */
  io: { stdin: () => NodeJS.ReadableStream; write: (text: string) => void; traced: boolean },
): RunApprovals {
  if (mode !== "ask") {
    return {
      onApproval: mode === "all" ? approveEverything : undefined,
      observe() {},
      close() {},
      write: io.write,
    };
  }
  const lines = new TerminalLines(io.stdin());
  const approver = terminalApprover({ lines, write: io.write, announce: !io.traced });
  return {
    onApproval: approver.handler,
    observe: approver.observe,
    close: () => lines.close(),
    write: approver.write,
  };
}
