import { type Command, defineCommand, type ExecResult } from "just-bash";

/** find's expression starts at the first argument that begins with `-`, `(`, `!` or `,`. */
function startingPoints(args: readonly string[]): string[] {
  const starts: string[] = [];
  for (const arg of args) {
    if (/^[-(!,]/.test(arg) && arg !== "-") break;
    starts.push(arg);
  }
  return starts;
}

/**
 * `find` as just-bash runs it (its expression language, `-newer`, `-maxdepth`...), with GNU's
 * spelling of a starting point written with one trailing slash: GNU prints `dir/` itself and
 * `dir/x` below it; just-bash prints `dir` and `dir/x`. Only lines that are the start or under it
 * change; order, other output and status are just-bash's.
 */
export function createFindCommand(): Command {
  return defineCommand("find", async (args, ctx): Promise<ExecResult> => {
    const original = ctx.origCommand;
    if (!original) throw new Error("just-bash did not expose the bundled find to the override");
    const result = await original(args);
    const slashed = startingPoints(args).filter((start) => /[^/]\/$/.test(start));
    if (slashed.length === 0 || result.stdout === "") return result;
    const lines = result.stdout.split("\n");
    for (let i = 0; i < lines.length; i++) {
      for (const start of slashed) {
        const bare = start.slice(0, -1);
        if (lines[i] === bare) lines[i] = start;
      }
    }
    return { ...result, stdout: lines.join("\n") };
  });
}
