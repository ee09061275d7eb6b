import type { DocsSession } from "./docs-session.js";

/**
 * What every docs session offers, whether it runs in this thread (`openDocsSession`) or in a
 * pool worker (`SessionWorkerPool.openSession`): run a command line, where the next one starts,
 * whom it serves, close. The agent tools and the MCP server take this.
 */
export type DocsShell = Pick<DocsSession, "access" | "cwd" | "exec" | "close" | typeof Symbol.asyncDispose>;
