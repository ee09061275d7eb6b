import {
  type AnyNode,
  type ForInStatement,
  type ForOfStatement,
  type Pattern,
  parse,
  type Statement,
  type VariableDeclaration,
} from "acorn";
import { base, recursive, type WalkerCallback } from "acorn-walk";

/**
 * Notebook semantics for one step of model-written JavaScript, the rewrite Node's REPL does for
 * top-level await (lib/internal/repl/await.js): every top-level declaration becomes a global
 * `var` (so it survives into later steps, and a later step may declare the same name again), the
 * code runs inside an async arrow (so `await` works), and the last expression statement becomes
 * its return value. Edits never add or remove a line break, so a line in the script is the same
 * line in the user's code.
 */
export interface NotebookScript {
  /** The script to evaluate as a global (non-module) script; it evaluates to a Promise. */
  script: string;
  /** Names the code declares at top level, with the line of each declaration. */
  declared: DeclaredName[];
}

export interface DeclaredName {
  name: string;
  line: number;
}

/** The code does not parse. `line` and `column` are 1-based positions in the user's code. */
export class NotebookSyntaxError extends Error {
  readonly line: number;
  readonly column: number;
  constructor(message: string, line: number, column: number) {
    super(message);
    this.name = "SyntaxError";
    this.line = line;
    this.column = column;
  }
}

interface Edit {
  at: number;
  /** Characters replaced from `at` (0 for an insertion). */
  length: number;
  text: string;
}

/** Rewrites `code` (see {@link NotebookScript}); throws {@link NotebookSyntaxError}. */
export function toNotebookScript(code: string): NotebookScript {
  const program = parseProgram(code);
  const edits: Edit[] = [];
  const declared: DeclaredName[] = [];
  const lineOf = (node: AnyNode) => node.loc?.start.line ?? 1;
  const declare = (name: string, node: AnyNode) => declared.push({ name, line: lineOf(node) });

  const body = program.body as Statement[];
  body.forEach((statement, index) => {
    switch (statement.type) {
      case "VariableDeclaration":
        for (const declarator of statement.declarations) {
          for (const name of patternNames(declarator.id)) declare(name, declarator);
        }
        rewriteDeclaration(statement, ";void (", edits);
        break;
      case "FunctionDeclaration":
        declare(statement.id.name, statement);
        // The declaration stays (so it is hoisted within the step); this copies it to the global.
        edits.push({
          at: statement.start,
          length: 0,
          text: `;this.${statement.id.name} = ${statement.id.name};`,
        });
        break;
      case "ClassDeclaration":
        declare(statement.id.name, statement);
        edits.push({ at: statement.start, length: 0, text: `;${statement.id.name} = ` });
        edits.push({ at: statement.end, length: 0, text: ";" });
        break;
      case "ExpressionStatement":
        if (index === body.length - 1) {
          // The statement's range includes parentheses around the expression (the expression's
          // does not) and its semicolon, which stays outside.
          const end = code[statement.end - 1] === ";" ? statement.end - 1 : statement.end;
          edits.push({ at: statement.start, length: 0, text: "return (" });
          edits.push({ at: end, length: 0, text: ")" });
        }
        break;
      default:
        hoistNestedVars(statement, edits, declare);
    }
  });

  const names = [...new Set(declared.map((entry) => entry.name))];
  const prefix = `${names.length ? `var ${names.join(", ")}; ` : ""}(async () => { `;
  return { script: `${prefix}${applyEdits(code, edits)}\n})()`, declared };
}

function parseProgram(code: string) {
  try {
    return parse(code, {
      ecmaVersion: "latest",
      sourceType: "script",
      allowAwaitOutsideFunction: true,
      locations: true,
    });
  } catch (error) {
    const loc = (error as { loc?: { line: number; column: number } }).loc;
    if (!loc) throw error;
    const message = (error as Error).message.replace(/ \(\d+:\d+\)$/, "");
    throw new NotebookSyntaxError(message, loc.line, loc.column + 1);
  }
}

/**
 * `const {a, b: [c]} = x, d = 1` → `;void (({a, b: [c]} = x), (d = 1))`. The leading `;` keeps
 * the statement from continuing a previous line without a semicolon; `void (...)` keeps it one
 * statement wherever a statement may stand.
 */
function rewriteDeclaration(declaration: VariableDeclaration, opener: string, edits: Edit[]): void {
  edits.push({ at: declaration.start, length: declaration.kind.length, text: opener });
  for (const declarator of declaration.declarations) {
    if (declarator.init) {
      edits.push({ at: declarator.start, length: 0, text: "(" });
      edits.push({ at: declarator.end, length: 0, text: ")" });
    } else if (declaration.kind === "var") {
      // `var x;` keeps x's value, as a redeclared var does.
      edits.push({ at: declarator.start, length: 0, text: "(" });
      edits.push({ at: declarator.end, length: 0, text: ")" });
    } else {
      edits.push({ at: declarator.start, length: 0, text: "(" });
      edits.push({ at: declarator.end, length: 0, text: " = void 0)" });
    }
  }
  const last = declaration.declarations[declaration.declarations.length - 1];
  if (last) edits.push({ at: last.end, length: 0, text: ")" });
}

/**
 * A `var` inside a top-level block, loop or `try` belongs to the step's scope too, so it must
 * also become a global. Functions are not entered: their vars are their own.
 */
function hoistNestedVars(
  statement: Statement,
  edits: Edit[],
  declare: (name: string, node: AnyNode) => void,
) {
  const skip = () => {};
  recursive(statement, undefined, {
    Function: skip,
    Class: skip,
    VariableDeclaration(node, state, walk) {
      if (node.kind === "var") {
        for (const declarator of node.declarations) {
          for (const name of patternNames(declarator.id)) declare(name, declarator);
        }
        rewriteDeclaration(node, "void (", edits);
      }
      base.VariableDeclaration?.(node, state, walk);
    },
    ForInStatement: (node, state, walk) => forInOf(node, state, walk, edits, declare),
    ForOfStatement: (node, state, walk) => forInOf(node, state, walk, edits, declare),
  });
}

function forInOf(
  node: ForInStatement | ForOfStatement,
  state: undefined,
  walk: WalkerCallback<undefined>,
  edits: Edit[],
  declare: (name: string, node: AnyNode) => void,
): void {
  const left = node.left;
  if (left.type === "VariableDeclaration" && left.kind === "var") {
    // `for (var k in o)` → `for ( k in o)`: a pattern in a for-in/of head may not be wrapped.
    for (const declarator of left.declarations) {
      for (const name of patternNames(declarator.id)) declare(name, declarator);
    }
    edits.push({ at: left.start, length: left.kind.length, text: "" });
  } else {
    walk(left, state);
  }
  walk(node.right, state);
  walk(node.body, state);
}

function patternNames(pattern: Pattern): string[] {
  switch (pattern.type) {
    case "Identifier":
      return [pattern.name];
    case "ObjectPattern":
      return pattern.properties.flatMap((property) =>
        property.type === "RestElement" ? patternNames(property.argument) : patternNames(property.value),
      );
    case "ArrayPattern":
      return pattern.elements.flatMap((element) => (element ? patternNames(element) : []));
    case "AssignmentPattern":
      return patternNames(pattern.left);
    case "RestElement":
      return patternNames(pattern.argument);
    default:
      return [];
  }
}

function applyEdits(code: string, edits: Edit[]): string {
  // Stable order: by position, insertions at the same spot in the order they were made.
  const ordered = edits
    .map((edit, order) => ({ edit, order }))
    .sort((a, b) => a.edit.at - b.edit.at || a.order - b.order);
  let out = "";
  let cursor = 0;
  for (const { edit } of ordered) {
    out += code.slice(cursor, edit.at) + edit.text;
    cursor = Math.max(cursor, edit.at + edit.length);
  }
  return out + code.slice(cursor);
}
