import { PassThrough } from "node:stream";
import type { ApprovalRequest } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { terminalApprover } from "../src/cli/terminal-approver.js";
import { TerminalLines } from "../src/cli/terminal-lines.js";

/** An approver over typed lines (a stream standing in for the terminal's input), and what it wrote. */
function approverOver(input: PassThrough) {
  let screen = "";
  const lines = new TerminalLines(input);
  const approver = terminalApprover({ lines, write: (text) => (screen += text), announce: true });
  return { approver, lines, screen: () => screen };
}

const request = (id: string, name: string): ApprovalRequest => ({
  toolCallId: id,
  toolName: name,
  input: { id },
});
const until = (check: () => boolean) =>
  new Promise<void>((resolve) => {
    const poll = () => (check() ? resolve() : setTimeout(poll, 5));
    poll();
  });

describe("terminalApprover", () => {
  it("asks about calls made at once one after the other, in order, and drops a line typed before a question", async () => {
    const input = new PassThrough();
    const { approver, lines, screen } = approverOver(input);
    const signal = new AbortController().signal;
    approver.observe({ type: "approval-requested", step: 1, id: "c1", name: "wipe", input: { id: "c1" } });
    approver.observe({ type: "approval-requested", step: 1, id: "c2", name: "erase", input: { id: "c2" } });
    // Typed before any question: read and dropped, it answers nothing.
    input.write("y\n");
    await new Promise((resolve) => setImmediate(resolve));
    const first = approver.handler(request("c1", "wipe"), signal);
    const second = approver.handler(request("c2", "erase"), signal);
    await until(() => screen().endsWith("Run wipe? [y/n] "));
    input.write("n\n");
    await until(() => screen().endsWith("Enter to skip) "));
    input.write("not this one\n");
    expect(await first).toEqual({ approved: false, reason: "not this one" });
    await until(() => screen().endsWith("Run erase? [y/n] "));
    input.write("yes\n");
    expect(await second).toEqual({ approved: true });
    // The terminal echoes the typing; the stream here does not, so the answers are not on screen.
    expect(screen()).toBe(
      [
        '⏸ wipe({"id":"c1"}) needs approval (step 1)',
        `  Run wipe? [y/n]   Why not? (optional, told to the model; Enter to skip) ⏸ erase({"id":"c2"}) needs approval (step 1)`,
        "  Run erase? [y/n] ",
      ].join("\n"),
    );
    lines.close();
  });

  it("refuses when the input ends (Ctrl-D), and a withdrawn question ends its line and rejects", async () => {
    const input = new PassThrough();
    const { approver, screen } = approverOver(input);
    const withdrawn = new AbortController();
    const asked = approver.handler(request("c1", "wipe"), withdrawn.signal);
    await until(() => screen().endsWith("Run wipe? [y/n] "));
    withdrawn.abort(new Error("the step ended"));
    await expect(asked).rejects.toThrow("the step ended");
    approver.write("next line\n");
    expect(screen()).toBe('⏸ wipe({"id":"c1"}) needs approval\n  Run wipe? [y/n] \nnext line\n');
    const ended = approver.handler(request("c2", "wipe"), new AbortController().signal);
    await until(() => screen().endsWith("Run wipe? [y/n] "));
    input.end();
    expect(await ended).toEqual({ approved: false, reason: "no answer: the terminal's input ended" });
  });
});
