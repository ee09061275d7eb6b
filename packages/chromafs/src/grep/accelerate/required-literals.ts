import type { GnuToken } from "../gnu/gnu-regex.js";

/**
 * Strings every match of a pattern holds, for narrowing with the grep index: one per top-level
 * alternative, each the longest run of plain characters that alternative cannot match without
 * (outside groups, and not made optional by a quantifier). `Kube(rnetes)?` gives `["Kube"]`,
 * `webhook|SAML` gives `["webhook", "SAML"]`, `ab+c` gives `["ab"]`. Null when some alternative
 * holds no such run (`[0-9]+`, `(a|b)c?`): then no literal narrows the pattern.
 */
export function requiredLiterals(tokens: readonly GnuToken[]): string[] | null {
  const literals: string[] = [];
  let depth = 0;
  let run = "";
  let best = "";
  const endRun = () => {
    if (run.length > best.length) best = run;
    run = "";
  };
  const endAlternative = () => {
    endRun();
    if (best === "") return false;
    literals.push(best);
    best = "";
    return true;
  };
  for (let at = 0; at < tokens.length; at++) {
    const token = tokens[at] as GnuToken;
    if (token.kind === "open") {
      // A group's content may be optional, repeated or one of several: it is not looked into.
      if (depth === 0) endRun();
      depth++;
      continue;
    }
    if (token.kind === "close") {
      depth--;
      if (depth < 0) return null;
      continue;
    }
    if (depth > 0) continue;
    if (token.kind === "alternation") {
      if (!endAlternative()) return null;
    } else if (token.kind === "literal") {
      const next = tokens[at + 1];
      if (next?.kind !== "repeat") run += token.char;
      else {
        // `c?`/`c*` may leave the character out. `c+`/`c{2,}` hold it, maybe repeated: what comes
        // before is followed by its first copy, what comes after follows its last.
        if (next.min > 0) run += token.char;
        endRun();
        if (next.min > 0) run = token.char;
        at++;
      }
    } else endRun(); // any character, a class, an assertion, a back-reference, a quantifier
  }
  if (depth !== 0 || !endAlternative()) return null;
  return literals;
}
