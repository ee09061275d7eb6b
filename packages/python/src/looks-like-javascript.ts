/**
 * Signs that code sent to the Python sandbox is JavaScript: a model used to the JavaScript
 * dialect (or confused by a tool's example) writes `const x = await tool({...});`. Only checked
 * after Python refused the code as a syntax error, so a false alarm costs a sentence, not a run.
 */
const JAVASCRIPT_SIGNS: readonly RegExp[] = [
  /^\s*(?:const|let|var)\s+[A-Za-z_$][\w$]*\s*=/m,
  /\bawait\s+[A-Za-z_$][\w$]*\s*\(\s*\{/,
  /\bconsole\.log\s*\(/,
  /^\s*function\s+[A-Za-z_$][\w$]*\s*\(/m,
  /=>\s*[{(]?/,
  /^\s*\/\/\s/m,
  /\)\s*\{\s*$/m,
  /===|!==/,
];

/** True when at least two different signs of JavaScript appear (one alone may be a fluke). */
export function looksLikeJavaScript(code: string): boolean {
  let signs = 0;
  for (const sign of JAVASCRIPT_SIGNS) {
    if (sign.test(code)) signs++;
    if (signs >= 2) return true;
  }
  return false;
}

export const JAVASCRIPT_HINT =
  "This looks like JavaScript, but this sandbox runs Python. Write Python: no const/let/await, call tools as functions with keyword arguments (result = tool_name(field=value)), print with print(...).";
