// `await using` closes what an agent or an executor holds at the end of the block.
import { ClosedError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { CodeAgent } from "../src/agents/index.js";
import { QuickJsExecutor } from "../src/executors/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { js } from "./support/agents.js";

describe("await using", () => {
  it("closes a QuickJsExecutor: a later run names it closed", async () => {
    let kept: QuickJsExecutor;
    {
      await using executor = await QuickJsExecutor.create();
      kept = executor;
      expect((await executor.run("1 + 1")).output).toBe(2);
    }
    await expect(kept.run("1 + 1")).rejects.toThrow(new ClosedError("QuickJsExecutor"));
  });

  it("closes an agent: the sandbox it made is closed, and the agent can run again", async () => {
    let agent: CodeAgent;
    let sandbox: Awaited<ReturnType<CodeAgent["executor"]>>;
    {
      await using scoped = new CodeAgent({ model: new ScriptedModel([js("final_answer(6 * 7)")]) });
      agent = scoped;
      expect((await scoped.run("six times seven")).output).toBe(42);
      sandbox = await scoped.executor();
    }
    await expect(sandbox.run("1")).rejects.toThrow(new ClosedError("QuickJsExecutor"));
    expect(await agent.executor()).not.toBe(sandbox);
    await agent.close();
  });
});
