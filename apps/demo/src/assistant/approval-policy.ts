import type { ApprovalDecision, Tool } from "@atrium/spec";

/**
 * Which of the assistant's tool calls wait for a person's yes. "memory-writes": every memory
 * tool that changes the palace (its annotations say `readOnlyHint: false`: remember, kg_add,
 * diary_write), so nothing is filed about the user without their say; the docs tools and the
 * memory tools that only read never ask. "off" (the default): nothing asks.
 */
export type ApprovalPolicy = "off" | "memory-writes";

export const APPROVAL_POLICIES: readonly ApprovalPolicy[] = ["off", "memory-writes"];

/** The memory tools with `needsApproval` where the policy says so; the others as they are. */
export function withApprovals(tools: readonly Tool[], policy: ApprovalPolicy): Tool[] {
  if (policy === "off") return [...tools];
  // The palace marks every tool: a tool without annotations is not assumed to be harmless.
  return tools.map((tool) =>
    tool.annotations?.readOnlyHint === true ? tool : { ...tool, needsApproval: true },
  );
}

/**
 * The answer where no one can be asked (the command line has no prompt): a refusal that says
 * where approvals can be given, instead of the agent's generic one.
 */
export function refuseUnasked(): ApprovalDecision {
  return {
    approved: false,
    reason:
      "memory writes need approval (--approve memory-writes) and the command line cannot ask; approve them in the web UI (--web), or leave out --approve",
  };
}
