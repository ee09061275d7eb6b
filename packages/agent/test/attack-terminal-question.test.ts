import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CodeAgent } from "../src/agents/index.js";
import { approvalRequestedLine } from "../src/cli/approval-lines.js";
import { terminalApprover } from "../src/cli/terminal-approver.js";
import type { TerminalLines } from "../src/cli/terminal-lines.js";
import { ScriptedModel } from "../src/models/index.js";
import { tool } from "../src/tools/index.js";
import { js, track } from "./support/agents.js";

// Found by an outside review: with the step trace on, the question "Run it? [y/n]" named no call,
// and a second call's "⏸ … needs approval" line could land between the first question and its
// answer, so the line above the cursor was not the call the "y" decided. Now the question names
// its call, that call's line is right above it, and other lines wait until it is answered.
describe("attack: which call does 'Run it?' decide", () => {
  it("a person who approves the call shown above the question never approves another", async () => {
    const removed: string[] = [];
    const remove = tool({
      name: "remove",
      description: "Removes a file.",
      inputSchema: z.object({ path: z.string() }),
      needsApproval: true,
      execute: ({ path }) => {
        removed.push(path);
        return `removed ${path}`;
      },
    });
    let screen = "";
    const write = (text: string) => {
      screen += text;
    };
    // A careful person: reads the call shown just above the question, says yes only to tmp.txt.
    const lines = {
      next: async () => {
        await new Promise((r) => setTimeout(r, 150));
        const shown =
          screen
            .split("\n")
            .filter((l) => l.startsWith("⏸"))
            .at(-1) ?? "";
        return shown.includes("tmp.txt") ? "y" : "n";
      },
      close() {},
    } as unknown as TerminalLines;
    const approver = terminalApprover({ lines, write, announce: false });
    const model = new ScriptedModel([
      js(
        'const r = await Promise.allSettled([remove({ path: "/home/me/thesis" }), remove({ path: "tmp.txt" })]);\nconsole.log(JSON.stringify(r));',
      ),
      js('final_answer("ok")'),
    ]);
    const agent = track(new CodeAgent({ model, tools: [remove] }));
    await agent.run("clean up", {
      onApproval: approver.handler,
      onEvent: (event) => {
        approver.observe(event);
        // what the CLI's step trace prints for it, through the approver's write
        if (event.type === "approval-requested")
          approver.write(`${approvalRequestedLine(event.name, event.input, event.step)}\n`);
      },
    });
    expect(removed).not.toContain("/home/me/thesis");
  }, 30_000);
});
