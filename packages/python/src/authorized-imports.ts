import { ConfigError } from "@atrium/spec";

/**
 * Standard-library modules Python code may import unless the developer says otherwise (after
 * smolagents' `BASE_BUILTIN_MODULES`, plus pure-computation modules models reach for). An entry
 * authorizes its submodules too; "pkg.*" does the same, "*" authorizes everything that is not
 * blocked outright (the JS bridge, processes, sockets, the import machinery: see the harness).
 */
export const DEFAULT_AUTHORIZED_IMPORTS: readonly string[] = Object.freeze([
  "base64",
  "bisect",
  "collections",
  "copy",
  "dataclasses",
  "datetime",
  "decimal",
  "difflib",
  "enum",
  "fractions",
  "functools",
  "hashlib",
  "heapq",
  "itertools",
  "json",
  "math",
  "operator",
  "queue",
  "random",
  "re",
  "stat",
  "statistics",
  "string",
  "textwrap",
  "time",
  "typing",
  "unicodedata",
]);

const MODULE_NAME = /^(?:\*|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\.\*)?)$/;

/** The defaults plus `additional`, each checked to be a module name (or a wildcard). */
export function authorizedImports(additional: readonly string[] = []): string[] {
  for (const name of additional) {
    if (typeof name !== "string" || !MODULE_NAME.test(name)) {
      throw new ConfigError(
        `additionalAuthorizedImports: ${JSON.stringify(name)} is not a module name; use names like "csv", "xml.*" or "*"`,
      );
    }
  }
  return [...new Set([...DEFAULT_AUTHORIZED_IMPORTS, ...additional])];
}
