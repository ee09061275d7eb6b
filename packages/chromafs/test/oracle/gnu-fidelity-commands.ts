import type { OracleCommand } from "./oracle-commands.js";

const ordered = (command: string): OracleCommand => ({ command });

/**
 * The differences from GNU issue 26 found on a docs corpus ChromaFs was not tuned on: sed ranges
 * whose end address also matches the start line, `2>&1` keeping the order output was written in,
 * `wc -L`, and the line `nl` does not number.
 */
export const GNU_FIDELITY_COMMANDS: readonly OracleCommand[] = [
  // sed ranges: the end regex is looked for from the line after the start on (one section cut out)
  ordered("sed -n '/^## Before/,/^## /p' $R/quickstart.mdx"),
  ordered("sed -n '/^## /,/^## /p' $R/quickstart.mdx | head -40"),
  ordered("sed -n '/^---$/,/^---$/p' $R/index.mdx"),
  ordered("sed '/^---$/,/^---$/d' $R/ai/llmstxt.mdx | head -8"),
  ordered("sed -n '0,/^---$/p' $R/index.mdx"),
  ordered("sed -n '/^## Next/,$p' $R/quickstart.mdx"),
  ordered("sed -n '5,2p' $R/quickstart.mdx"),
  ordered("sed -n '/^## /,+2p' $R/quickstart.mdx"),
  ordered("sed -n '/^## View/,60p' $R/quickstart.mdx"),
  ordered("sed -n '/^title:/,/^description:/{=;p}' $R/zh/index.mdx"),
  ordered("sed -n '/^## /,/^## /!p' $R/quickstart.mdx | wc -l"),
  ordered("printf 'a\\nb\\na\\n' | sed -n '/a/,/a/p'"),
  ordered("sed -n '/^## Before/,/^## /{n;p}' $R/quickstart.mdx"),
  ordered("sed '/^## /a ---' $R/quickstart.mdx | head -30"),
  ordered("sed ':a;N;$!ba;s/\\n/ /g' $R/README.md"),
  ordered("sed -n '1!G;h;$p' $R/index.mdx | head"),
  // 2>&1: messages where they were written among the output
  ordered("cat $R/missing.mdx $R/index.mdx 2>&1 | head -3"),
  ordered("cat $R/index.mdx $R/missing.mdx $R/README.md 2>&1 | tail -12"),
  ordered("head -n 2 $R/index.mdx $R/nope $R/README.md 2>&1"),
  ordered("wc -l $R/nope $R/index.mdx $R/README.md 2>&1"),
  ordered("ls $R/ai $R/nope 2>&1 | head -3"),
  ordered("{ cat $R/nope; cat $R/README.md; } 2>&1 | head -2"),
  ordered("stat -c '%n %s' $R/index.mdx $R/nope $R/README.md 2>&1"),
  ordered("cut -c1-5 $R/nope $R/README.md 2>&1 | head -3"),
  ordered("sed -n 1p $R/index.mdx $R/nope 2>&1"),
  ordered("for f in nope README.md; do head -n 1 $R/$f; done 2>&1"),
  // wc -L: display width, a tab to the next multiple of 8, wide characters 2
  ordered("wc -L $R/index.mdx $R/zh/index.mdx $R/docs.json"),
  ordered("wc -lL $R/zh/ai/*.mdx"),
  ordered("cat $R/zh/quickstart.mdx | wc -L"),
  // nl: an unnumbered line is the width plus the separator's length in spaces
  ordered("nl $R/quickstart.mdx | head -20"),
  ordered("nl -w3 -s': ' $R/index.mdx | head -12"),
];

/** The same four over the generated corpus: lines over 10 KB, non-ASCII text, empty pages. */
export const GENERATED_GNU_FIDELITY_COMMANDS: readonly OracleCommand[] = [
  ordered("wc -L $R/long/* $R/empty/*"),
  ordered("wc -L $R/a/b/c/d/e/f/g/h/level-8.md $R/data/pairs.md"),
  ordered("nl $R/empty/newlines.md $R/README.md"),
  ordered("sed -n '/^key1/,/^key/p' $R/data/pairs.md"),
  ordered("cat $R/empty/none.md $R/README.md 2>&1"),
];
