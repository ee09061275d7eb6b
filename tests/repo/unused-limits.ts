import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * Finds limits and tuning values a package declares but never uses. A declared name is every
 * exported constant and function of `limits.ts` / `tuning.ts`, every field of an exported
 * interface there and every key of an exported object record (the defaults); it counts as used
 * when it appears as an identifier (a variable, a property access, a destructured or object key)
 * in any other non-test source file of the package's `src/`. Comments and strings never count,
 * because the files are parsed, not searched. The limits every executor shares (`@atrium/kit`'s
 * `ExecutorLimits`) are read by kit's `SandboxedExecutor`, so they count as used in a package
 * whose executor extends it.
 */

export interface UnusedName {
  /** The declaring file, relative to the package root, e.g. "src/limits.ts". */
  file: string;
  name: string;
}

/** The module files that declare a package's limits and tuning values, relative to its root. */
export const LIMIT_FILES = ["src/limits.ts", "src/tuning.ts"] as const;

const KIT_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "packages", "kit");
const SHARED_EXECUTOR_LIMITS = "src/executor/executor-limits.ts";

export function unusedLimits(packageRoot: string): UnusedName[] {
  const sources = listSources(join(packageRoot, "src")).map((path) => relative(packageRoot, path));
  const declaring = LIMIT_FILES.filter((file) => sources.includes(file));
  const unused: UnusedName[] = [];
  for (const file of declaring) {
    const used = new Set<string>();
    for (const other of sources) {
      if (other !== file) collectIdentifiers(parse(packageRoot, other), used);
    }
    if (used.has("SandboxedExecutor")) {
      for (const name of declaredNames(parse(KIT_ROOT, SHARED_EXECUTOR_LIMITS))) used.add(name);
    }
    for (const name of declaredNames(parse(packageRoot, file))) {
      if (!used.has(name)) unused.push({ file, name });
    }
  }
  return unused;
}

/** Non-test TypeScript sources under `dir`, sorted. */
function listSources(dir: string): string[] {
  const entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter(
      (entry) => entry.isFile() && entry.name.endsWith(".ts") && !/\.test\.ts$|\.d\.ts$/.test(entry.name),
    )
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

function parse(root: string, file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.Latest, true);
}

function isExported(node: ts.Node): boolean {
  return (ts.getCombinedModifierFlags(node as ts.Declaration) & ts.ModifierFlags.Export) !== 0;
}

/** Exported names, interface fields and record keys of one limits or tuning module, in order. */
export function declaredNames(source: ts.SourceFile): string[] {
  const names: string[] = [];
  const add = (name: string) => {
    if (!names.includes(name)) names.push(name);
  };
  for (const statement of source.statements) {
    if (ts.isInterfaceDeclaration(statement) && isExported(statement)) {
      for (const member of statement.members) {
        if (member.name && ts.isIdentifier(member.name)) add(member.name.text);
      }
    } else if (ts.isFunctionDeclaration(statement) && isExported(statement) && statement.name) {
      add(statement.name.text);
    } else if (ts.isVariableStatement(statement) && isExported(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name)) continue;
        const record = objectLiteralOf(declaration.initializer);
        if (!record) {
          add(declaration.name.text);
          continue;
        }
        // A record is used through its keys: each must be read somewhere.
        for (const property of record.properties) {
          if (property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))) {
            add(property.name.text);
          }
        }
      }
    }
  }
  return names;
}

/** `{ ... }`, `Object.freeze({ ... })` or either with `as const` / `satisfies`. */
function objectLiteralOf(node: ts.Expression | undefined): ts.ObjectLiteralExpression | undefined {
  let current = node;
  while (
    current &&
    (ts.isAsExpression(current) || ts.isSatisfiesExpression(current) || ts.isParenthesizedExpression(current))
  ) {
    current = current.expression;
  }
  if (!current) return undefined;
  if (ts.isObjectLiteralExpression(current)) return current;
  if (ts.isCallExpression(current) && current.arguments.length === 1)
    return objectLiteralOf(current.arguments[0]);
  return undefined;
}

function collectIdentifiers(node: ts.Node, into: Set<string>): void {
  if (ts.isIdentifier(node)) into.add(node.text);
  ts.forEachChild(node, (child) => collectIdentifiers(child, into));
}
