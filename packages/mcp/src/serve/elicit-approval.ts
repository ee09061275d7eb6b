import { capText } from "@atrium/kit";
import type { ApprovalDecision, ApprovalHandler, ApprovalRequest, ToolContext } from "@atrium/spec";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ElicitResult, RequestId } from "@modelcontextprotocol/sdk/types.js";

/**
 * A served call's context: a spec `ToolContext`, plus a way to ask the client that made the
 * call. The agent served as a tool (`agentTool`) passes it to its run as `onApproval`.
 */
export interface ServedToolContext extends ToolContext {
  /** Asks the connected client's user (MCP elicitation) whether a call that needs approval may run. */
  readonly onApproval?: ApprovalHandler;
}

/** Why a call was refused when the client did not declare that it can be asked. */
export const CLIENT_CANNOT_ELICIT =
  "the MCP client cannot be asked: it did not declare the elicitation capability (form mode), so calls that need approval are refused";

/** Why a call was refused when the server answers in plain JSON, which carries no request to the client. */
export const JSON_RESPONSES_CANNOT_ELICIT =
  "the MCP client cannot be asked: this server answers in plain JSON (jsonResponse: true), which carries no question to the client; serve with SSE responses to have calls approved";

/** The longest a call's input is quoted in the question. */
const MAX_INPUT_CHARS = 1_000;

/**
 * The SDK times out a request after 60 s by default, sooner than a person answers; the approval's
 * own limit (`approvalTimeoutMs`) ends the wait through the handler's signal instead.
 */
const NO_SDK_TIMEOUT_MS = 2_147_483_647;

/** What `createMcpServer` knows of the transport a server is connected to. */
export interface ElicitOptions {
  /** False where a request to the client cannot be delivered during a call (JSON responses). */
  canAskClient: boolean;
}

/**
 * The `onApproval` of one `tools/call`: asks the client with `elicitation/create` (form mode, on
 * the call's own stream), with a message naming the tool and its input and a form of a boolean
 * `approve` and an optional `reason`. Only an accepted form with `approve: true` approves; a
 * client that did not declare elicitation gets every such call refused, saying so.
 */
export function elicitingApprover(
  server: Server,
  callId: RequestId,
  { canAskClient }: ElicitOptions,
): ApprovalHandler {
  return async (request, signal) => {
    if (!canAskClient) return { approved: false, reason: JSON_RESPONSES_CANNOT_ELICIT };
    if (!server.getClientCapabilities()?.elicitation?.form) {
      return { approved: false, reason: CLIENT_CANNOT_ELICIT };
    }
    const result = await server.elicitInput(
      {
        mode: "form",
        message: approvalQuestion(request),
        requestedSchema: {
          type: "object",
          properties: {
            approve: {
              type: "boolean",
              title: "Approve",
              description: `Run ${request.toolName} with the input shown`,
            },
            reason: {
              type: "string",
              title: "Reason",
              description: "Why not (optional; the agent is told)",
            },
          },
          required: ["approve"],
        },
      },
      { relatedRequestId: callId, signal, timeout: NO_SDK_TIMEOUT_MS },
    );
    return decisionOf(result);
  };
}

/** The question the client shows its user. */
export function approvalQuestion({ toolName, input }: ApprovalRequest): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(input);
  } catch {
    json = undefined; // a cycle or a BigInt: the question still names the tool
  }
  return `The agent wants to run the tool "${toolName}" with ${capText(json ?? String(input), MAX_INPUT_CHARS)}. Approve it?`;
}

/** The client's answer as a decision: anything but an accepted approve: true refuses. */
function decisionOf({ action, content }: ElicitResult): ApprovalDecision {
  const reason = typeof content?.reason === "string" ? content.reason.trim() : "";
  const because = (what: string) => (reason ? `${what}: ${reason}` : what);
  if (action === "accept") {
    return content?.approve === true
      ? { approved: true }
      : { approved: false, reason: because("the MCP client's user said no") };
  }
  if (action === "decline") return { approved: false, reason: because("the MCP client's user declined") };
  return { approved: false, reason: "the MCP client's user dismissed the question without answering" };
}
