import type { TransformPlugin } from "just-bash";
import { MERGED_STDERR_VARIABLE } from "../commands/written-order.js";

type Node = Record<string, unknown>;

/**
 * Where a command's stdout and stderr go, as names: equal names are one destination. Each file
 * a redirection opens is a destination of its own (`>f 2>f` opens `f` twice, as bash does).
 */
interface Streams {
  out: string;
  err: string;
}

const SHELL_STREAMS: Streams = { out: "stdout", err: "stderr" };

/** The text of a word made only of literal parts, else null. */
function literalText(word: unknown): string | null {
  const parts = (word as Node | null)?.parts;
  if (!Array.isArray(parts)) return null;
  let text = "";
  for (const part of parts as Node[]) {
    if (part.type !== "Literal" || typeof part.value !== "string") return null;
    text += part.value;
  }
  return text;
}

/** The streams after a node's redirections, applied left to right as bash applies them. */
function redirect(streams: Streams, redirections: unknown, opened: { count: number }): Streams {
  let { out, err } = streams;
  const fresh = () => `opened-${opened.count++}`;
  const set = (fd: number, destination: string) => {
    if (fd === 1) out = destination;
    else if (fd === 2) err = destination;
  };
  for (const redirection of (Array.isArray(redirections) ? redirections : []) as Node[]) {
    if (redirection.fdVariable) continue; // `{var}>f` opens a new descriptor above 9
    const operator = redirection.operator as string;
    const fd = typeof redirection.fd === "number" ? redirection.fd : operator.startsWith("<") ? 0 : 1;
    if (operator === "&>" || operator === "&>>") {
      out = err = fresh();
    } else if (operator === ">&") {
      const target = literalText(redirection.target);
      if (target === "1" || target === "2") set(fd, target === "1" ? out : err);
      else if (target !== null && /^\d+$/.test(target)) set(fd, `fd-${target}`);
      // `>&file` is `&>file`; `>&-` closes; anything else is a place of its own
      else if (fd === 1 && target !== null && target !== "-") out = err = fresh();
      else set(fd, fresh());
    } else set(fd, fresh());
  }
  return { out, err };
}

const COMPOUND = new Set([
  "If",
  "For",
  "CStyleFor",
  "While",
  "Until",
  "Case",
  "Subshell",
  "Group",
  "ArithmeticCommand",
  "ConditionalCommand",
]);

/**
 * Marks with `MERGED_STDERR_VARIABLE=1` each simple command, among `commands`, whose stderr
 * ends up where its stdout does (`cmd 2>&1`, `cmd >f 2>&1`, `cmd &>f`, `cmd |& next`,
 * `{ cmd; } 2>&1`, a loop's `done 2>&1`), so those commands hand over their output in the
 * order they wrote it (`written-order.ts`). Only names ChromaFs implements are marked: the
 * variable is then in no other command's environment.
 */
export function mergedStderrPlugin(commands: ReadonlySet<string>): TransformPlugin {
  const opened = { count: 0 };
  const mark = (command: Node, streams: Streams) => {
    const after = redirect(streams, command.redirections, opened);
    const name = literalText(command.name);
    if (after.out !== after.err || name === null || !commands.has(name)) return;
    (command.assignments as Node[]).push({
      type: "Assignment",
      name: MERGED_STDERR_VARIABLE,
      value: { type: "Word", parts: [{ type: "Literal", value: "1" }] },
      append: false,
      array: null,
    });
  };
  const walk = (value: unknown, streams: Streams): void => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item, streams);
      return;
    }
    if (value === null || typeof value !== "object") return;
    const node = value as Node;
    switch (node.type) {
      case "Script":
        walk(node.statements, streams);
        return;
      case "Statement":
        walk(node.pipelines, streams);
        return;
      case "Pipeline": {
        const items = node.commands as Node[];
        const pipeStderr = (node.pipeStderr ?? []) as boolean[];
        items.forEach((command, i) => {
          const last = i === items.length - 1;
          // Every command but the last writes its stdout to the pipe; `|&` sends stderr there
          // too, after the command's own redirections.
          const into = last ? streams : { out: `pipe-${opened.count++}`, err: streams.err };
          if (!last && pipeStderr[i]) {
            const after = redirect(into, command.redirections, opened);
            walkCommand(command, { out: after.out, err: after.out }, true);
          } else walkCommand(command, into, false);
        });
        return;
      }
      default:
        // Words, command substitutions and the rest: a substitution's commands start afresh.
        for (const key of Object.keys(node)) walk(node[key], SHELL_STREAMS);
    }
  };
  /** `redirected`: `streams` already has the command's own redirections applied (`|&`). */
  const walkCommand = (command: Node, streams: Streams, redirected: boolean) => {
    if (command.type === "SimpleCommand") {
      // The copy shares `assignments`, so marking it marks the command.
      mark(redirected ? { ...command, redirections: [] } : command, streams);
      for (const key of ["name", "args", "assignments", "redirections"]) walk(command[key], SHELL_STREAMS);
      return;
    }
    if (COMPOUND.has(command.type as string)) {
      const inside = redirected ? streams : redirect(streams, command.redirections, opened);
      for (const [key, child] of Object.entries(command)) {
        if (key === "redirections") walk(child, SHELL_STREAMS);
        else if (key === "clauses" || key === "items") {
          for (const part of child as Node[]) {
            for (const [partKey, grand] of Object.entries(part))
              walk(grand, partKey === "patterns" ? SHELL_STREAMS : inside);
          }
        } else
          walk(child, key === "body" || key === "condition" || key === "elseBody" ? inside : SHELL_STREAMS);
      }
      return;
    }
    // A function definition runs later, wherever it is called from.
    walk(command, SHELL_STREAMS);
  };
  return {
    name: "chromafs-merged-stderr",
    transform({ ast }) {
      walk(ast, SHELL_STREAMS);
      return { ast };
    },
  };
}
