import type { ExecutorFactory } from "@atrium/spec";

/** One entry of the web UI's executor switch. */
export interface ExecutorChoice {
  id: string;
  label: string;
  factory: ExecutorFactory;
  /** Boots a sandbox of this kind ahead of the first question (the CLI does it while Chroma starts). */
  prewarm?: () => Promise<void>;
  /** Ends what the executors of this kind keep between questions (warm workers), at shutdown. */
  shutdown?: () => Promise<void>;
}

/** An executor this app has but this host cannot run, and why (with what installs the rest). */
export interface UnavailableExecutor {
  id: string;
  label: string;
  reason: string;
}
