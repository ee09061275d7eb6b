import { randomUUID } from "node:crypto";
import { AbortError, type ApprovalDecision, type ApprovalHandler, errorMessage } from "@atrium/spec";

/** What `answer` did: the HTTP status the route sends and a message naming the problem. */
export type AnswerOutcome =
  | { status: 200; id: string; approved: boolean; reason?: string }
  | { status: 403 | 404 | 409; message: string };

/** One question's run as the desk knows it: its token, its handler, its waiting calls. */
export interface DeskRun {
  /** Sent to the page that asked (in `received`); an answer must carry it. */
  readonly token: string;
  /** The run's `onApproval`: each call waits here until the page answers or the wait ends. */
  readonly handler: ApprovalHandler;
  /** The desk's id of the approval asked for this tool call (what the page answers to). */
  approvalIdOf(toolCallId: string): string | undefined;
  /** Calls of this run waiting for an answer now (the stream's idle limit waits meanwhile). */
  readonly waiting: number;
  /** The run ended: its approvals are forgotten, and a call still waiting is refused. */
  close(): void;
}

interface Entry {
  readonly id: string;
  readonly run: string;
  state: "waiting" | "answered" | "withdrawn";
  /** How it ended, for a second answer's 409. */
  ended?: string;
  settle(decision: ApprovalDecision): void;
}

/**
 * The web UI's pending approvals. Each ask opens a run with a random token that only its own
 * stream carries to the page, and each call waiting for approval gets a random id: an answer
 * needs both, so another page (or another question's run) cannot approve a call it did not see.
 * An entry stays, answered or withdrawn, until its run ends, so a second answer is told why it
 * came too late (409) rather than that the id is unknown (404).
 */
export class ApprovalDesk {
  readonly #entries = new Map<string, Entry>();

  open(): DeskRun {
    const token = randomUUID();
    const byToolCall = new Map<string, Entry>();
    const entries = this.#entries;
    return {
      token,
      handler: (request, signal) =>
        new Promise<ApprovalDecision>((resolve, reject) => {
          if (signal.aborted) return reject(signal.reason);
          const entry: Entry = {
            id: randomUUID(),
            run: token,
            state: "waiting",
            settle: (decision) => {
              signal.removeEventListener("abort", withdraw);
              resolve(decision);
            },
          };
          // A timeout, the run's end or a closed page: the call no longer waits for this page.
          // A refusal, not a rejection: the agent already decided how the wait ended, and a
          // thrown abort could be taken for the run's own.
          const withdraw = () => {
            if (entry.state !== "waiting") return;
            entry.state = "withdrawn";
            const reason = errorMessage(signal.reason ?? new AbortError("the call no longer waits"));
            entry.ended = `it stopped waiting: ${reason}`;
            resolve({ approved: false, reason });
          };
          signal.addEventListener("abort", withdraw, { once: true });
          entries.set(entry.id, entry);
          byToolCall.set(request.toolCallId, entry);
        }),
      approvalIdOf: (toolCallId) => byToolCall.get(toolCallId)?.id,
      get waiting() {
        let count = 0;
        for (const entry of byToolCall.values()) if (entry.state === "waiting") count++;
        return count;
      },
      close() {
        for (const entry of byToolCall.values()) {
          entries.delete(entry.id);
          if (entry.state === "waiting") {
            entry.state = "withdrawn";
            entry.settle({ approved: false, reason: "the question ended before an answer came" });
          }
        }
        byToolCall.clear();
      },
    };
  }

  /** The page's answer to approval `id`, from the page holding run token `run`. */
  answer(id: string, run: string, decision: ApprovalDecision): AnswerOutcome {
    const entry = this.#entries.get(id);
    if (!entry) {
      return {
        status: 404,
        message: `no approval ${JSON.stringify(id)} is waiting: its question has ended, or the id is wrong; ask again`,
      };
    }
    if (entry.run !== run) {
      return {
        status: 403,
        message: `approval ${JSON.stringify(id)} belongs to another question's run; only the page that asked can answer it`,
      };
    }
    if (entry.state !== "waiting") {
      return {
        status: 409,
        message: `approval ${JSON.stringify(id)} was already settled (${entry.ended}); nothing more to answer`,
      };
    }
    entry.state = "answered";
    entry.ended = decision.approved ? "approved" : `denied${decision.reason ? `: ${decision.reason}` : ""}`;
    entry.settle(decision);
    return decision.approved
      ? { status: 200, id, approved: true }
      : { status: 200, id, approved: false, ...(decision.reason ? { reason: decision.reason } : {}) };
  }
}
