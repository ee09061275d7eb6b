export type { CodeDialect, ExampleStep, PromptExample } from "./code-dialect.js";
export { CODE_DIALECTS, dialectFor } from "./dialect-for.js";
export { JAVASCRIPT_DIALECT, javascriptSignature } from "./javascript.js";
export { PYTHON_DIALECT, pythonSignature } from "./python.js";
