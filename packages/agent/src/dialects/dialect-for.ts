import { type CodeLanguage, ConfigError } from "@atrium/spec";
import type { CodeDialect } from "./code-dialect.js";
import { JAVASCRIPT_DIALECT } from "./javascript.js";
import { PYTHON_DIALECT } from "./python.js";

/** The dialects a CodeAgent speaks, by executor language. */
export const CODE_DIALECTS: Readonly<Partial<Record<CodeLanguage, CodeDialect>>> = Object.freeze({
  javascript: JAVASCRIPT_DIALECT,
  python: PYTHON_DIALECT,
});

/**
 * The dialect for an executor's language. A language without one is a configuration error:
 * prompting the model in another language would only produce code the sandbox cannot run.
 */
export function dialectFor(language: CodeLanguage): CodeDialect {
  const dialect = Object.hasOwn(CODE_DIALECTS, language) ? CODE_DIALECTS[language] : undefined;
  if (dialect) return dialect;
  throw new ConfigError(
    `CodeAgent has no dialect for executor language "${String(language)}"; dialects available: ${Object.keys(CODE_DIALECTS).join(", ")}`,
  );
}
