import type { CodeLanguage, Tool } from "@atrium/spec";
import { dialectFor } from "../dialects/dialect-for.js";

// Each dialect renders its own signatures; these names stay importable from here.
export { javascriptSignature } from "../dialects/javascript.js";
export { pythonSignature } from "../dialects/python.js";

/** A tool as a function declaration in the language of a sandbox (see `dialectFor`). */
export function toolSignature(tool: Tool, language: CodeLanguage): string {
  return dialectFor(language).toolSignature(tool);
}
