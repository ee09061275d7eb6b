/**
 * One error base for every package. `code` is stable (match on it, not on messages);
 * `isRetryable` tells callers (model retry loops, MCP reconnects) whether trying again may help;
 * `isFatal` separates the failures that end a run (limits, aborts, security, bad configuration)
 * from those the model should see as an observation and fix (tool, parse, sandbox errors).
 */
export type ErrorCode =
  | "ABORTED"
  | "TIMEOUT"
  | "LIMIT_EXCEEDED"
  | "SECURITY"
  | "CONFIG"
  | "MODEL"
  | "TOOL"
  | "VALIDATION"
  | "PARSE"
  | "EXECUTION"
  | "CLOSED"
  | "NOT_FOUND"
  | "UNAVAILABLE"
  | "READ_ONLY";

export interface AtriumErrorOptions {
  cause?: unknown;
  isRetryable?: boolean;
  isFatal?: boolean;
}

const FATAL_BY_DEFAULT: ReadonlySet<ErrorCode> = new Set([
  "ABORTED",
  "LIMIT_EXCEEDED",
  "SECURITY",
  "CONFIG",
  "CLOSED",
]);

export class AtriumError extends Error {
  readonly code: ErrorCode;
  readonly isRetryable: boolean;
  readonly isFatal: boolean;

  constructor(code: ErrorCode, message: string, options: AtriumErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.isRetryable = options.isRetryable ?? false;
    this.isFatal = options.isFatal ?? FATAL_BY_DEFAULT.has(code);
  }
}

/** The run (or call) was cancelled through an AbortSignal. */
export class AbortError extends AtriumError {
  constructor(message = "The operation was aborted", options: AtriumErrorOptions = {}) {
    super("ABORTED", message, options);
  }
}

/** A time, memory, size or count limit was reached. `limit` names it (e.g. "maxSteps"). */
export class LimitError extends AtriumError {
  readonly limit: string;
  constructor(limit: string, message: string, options: AtriumErrorOptions = {}) {
    super("LIMIT_EXCEEDED", message, options);
    this.limit = limit;
  }
}

/** Something tried to cross a boundary it must not (sandbox escape, hidden path, ...). */
export class SecurityError extends AtriumError {
  constructor(message: string, options: AtriumErrorOptions = {}) {
    super("SECURITY", message, options);
  }
}

/** Invalid configuration or arguments given by the developer (not by the model). */
export class ConfigError extends AtriumError {
  constructor(message: string, options: AtriumErrorOptions = {}) {
    super("CONFIG", message, options);
  }
}

/**
 * A call reached a `CodeExecutor` while one of its runs was still going: most often a tool that
 * calls back into the executor running it. Runs of one executor never overlap, in every
 * executor: the call is refused, not queued. Use a second executor for nested work.
 */
export class ExecutorBusyError extends ConfigError {
  /** What was called: "run()", "setTools()", "setVariables()", "reset()", ... */
  readonly operation: string;
  constructor(operation: string) {
    super(
      `${operation} was called while this executor is running code (a tool calling back into its own executor?); runs never overlap: wait for the run to finish or use another executor`,
    );
    this.operation = operation;
  }
}

/** A model provider failed. `status` is the HTTP status when there was one. */
export class ModelError extends AtriumError {
  readonly status: number | undefined;
  constructor(message: string, options: AtriumErrorOptions & { status?: number } = {}) {
    super("MODEL", message, { isFatal: true, ...options });
    this.status = options.status;
  }
}

/**
 * A replayed step did something else than when it was recorded (another tool call, other input):
 * its state cannot be rebuilt from the record. Fatal: the resume stops.
 */
export class ReplayMismatchError extends AtriumError {
  constructor(message: string) {
    super("CONFIG", message, { isFatal: true });
  }
}

/** A tool failed; the model sees the message and may try again differently. */
export class ToolError extends AtriumError {
  readonly toolName: string;
  constructor(toolName: string, message: string, options: AtriumErrorOptions = {}) {
    super("TOOL", message, options);
    this.toolName = toolName;
  }
}

export interface ValidationIssue {
  /** Path to the offending field, e.g. ["user", "age"]; empty for the value itself. */
  path: (string | number)[];
  message: string;
}

/** Input did not match a schema. The message names every offending field. */
export class ValidationError extends AtriumError {
  readonly issues: ValidationIssue[];
  constructor(subject: string, issues: ValidationIssue[], options: AtriumErrorOptions = {}) {
    super("VALIDATION", `${subject}: ${formatIssues(issues)}`, options);
    this.issues = issues;
  }
}

/** The model's output could not be parsed (no code block, bad tool-call JSON, ...). */
export class ParseError extends AtriumError {
  constructor(message: string, options: AtriumErrorOptions = {}) {
    super("PARSE", message, options);
  }
}

/** Used after close(): the resource is gone and cannot be used again. */
export class ClosedError extends AtriumError {
  constructor(what: string) {
    super("CLOSED", `${what} is closed; create a new one`);
  }
}

export function formatIssues(issues: ValidationIssue[]): string {
  return issues
    .map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message))
    .join("; ");
}

export function isAtriumError(error: unknown): error is AtriumError {
  return error instanceof AtriumError;
}

/**
 * The message of any thrown value: an Error's `message`, anything else as text. Guards against
 * values whose `toString` throws (`Object.create(null)`), since this runs inside `catch` blocks.
 */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return Object.prototype.toString.call(error);
  }
}

/** True for errors that must end the run instead of becoming an observation. */
export function isFatalError(error: unknown): boolean {
  if (error instanceof AtriumError) return error.isFatal;
  return error instanceof Error && error.name === "AbortError";
}

/** Call first in every broad `catch`: fatal errors are never swallowed into observations. */
export function rethrowIfFatal(error: unknown): void {
  if (isFatalError(error)) throw error;
}

export interface SerializedError {
  name: string;
  code: ErrorCode | "UNKNOWN";
  message: string;
  isRetryable: boolean;
  isFatal: boolean;
}

/** A JSON-safe form of any thrown value, for events, logs and saved runs. */
export function serializeError(error: unknown): SerializedError {
  if (error instanceof AtriumError) {
    const { name, code, message, isRetryable, isFatal } = error;
    return { name, code, message, isRetryable, isFatal };
  }
  if (error instanceof Error) {
    return { name: error.name, code: "UNKNOWN", message: error.message, isRetryable: false, isFatal: false };
  }
  return { name: "Error", code: "UNKNOWN", message: errorMessage(error), isRetryable: false, isFatal: false };
}
