import type { NeedsApproval } from "./approval.js";
import type { ValidationIssue } from "./errors.js";
import type { ImagePart } from "./messages.js";

/** A JSON Schema object (draft 2020-12 or 7), as given to models and MCP clients. */
export type JsonSchema = { [key: string]: unknown };

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface ToolContext {
  /** Aborted when the run is cancelled or the call times out; long tools should stop. */
  signal: AbortSignal;
  toolCallId?: string;
  /** Reports progress of long calls; surfaced as `tool-progress` agent events. */
  onProgress?: (progress: ToolProgress) => void;
}

/**
 * What a tool does to the world, as MCP's tool annotations say it (hints for clients and for
 * approval policies, never a security boundary). MCP reads a tool without them as one that may
 * write, destroy and reach outside; Atrium's own tools say what they do.
 */
export interface ToolAnnotations {
  /** A human-readable title. */
  readonly title?: string;
  /** It only reads. */
  readonly readOnlyHint?: boolean;
  /** A write that may overwrite or remove what is there (false: it only adds). */
  readonly destructiveHint?: boolean;
  /** Calling it again with the same arguments changes nothing more. */
  readonly idempotentHint?: boolean;
  /** It reaches outside its own system (the web, other services). */
  readonly openWorldHint?: boolean;
}

/**
 * A function the model can call. Inside a code sandbox it is an async function named `name`
 * taking one object argument; with native tool calling its `inputSchema` goes to the provider.
 */
// biome-ignore lint/suspicious/noExplicitAny: tools of different inputs must fit one `Tool[]`.
export interface Tool<Input = any, Output = unknown> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  /** What it does to the world (MCP lists these with the tool). */
  readonly annotations?: ToolAnnotations;
  /**
   * A call waits for an approval before it runs (`true`, or a function of the input saying so
   * per call), as the AI SDK's tools declare it. Without an `ApprovalHandler` to ask, such a call
   * is refused.
   */
  readonly needsApproval?: NeedsApproval<Input>;
  /** Checks and normalises input before `execute`; a failure becomes an observation naming the field. */
  validate?(input: unknown): ValidationResult<Input> | Promise<ValidationResult<Input>>;
  execute(input: Input, context: ToolContext): Promise<Output | RichToolResult<Output>>;
}

/**
 * A tool result that carries images (or marks a soft error) besides its value. Inside a sandbox
 * the code sees `value`; the images go to the model with the next observation.
 */
export interface RichToolResult<Value = unknown> {
  type: "atrium.tool-result";
  value: Value;
  images?: ImagePart[];
}

export function richToolResult<Value>(value: Value, images: ImagePart[] = []): RichToolResult<Value> {
  return { type: "atrium.tool-result", value, images };
}

export function isRichToolResult(value: unknown): value is RichToolResult {
  return (
    typeof value === "object" && value !== null && (value as { type?: unknown }).type === "atrium.tool-result"
  );
}

/** Tool names must be valid identifiers in every sandbox language. */
export const TOOL_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
