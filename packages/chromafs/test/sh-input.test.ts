import { describe, expect, it } from "vitest";
import { isIncomplete } from "../src/cli/sh-command.js";

describe("the interactive shell waits for a complete command", () => {
  it.each([
    "for f in a b",
    "for f in a b\ndo echo $f",
    "if true; then\necho x",
    "while true",
    "case x in",
    "f() {",
    "echo 'open quote",
    'echo "open quote',
    "echo $(date",
    "echo a |",
    "echo a &&",
    "echo a ||",
    "echo a \\",
    "cat <<EOF\nbody",
    "cat <<-'END'\n\tbody",
  ])("more input after %j", (source) => {
    expect(isIncomplete(source)).toBe(true);
  });

  it.each([
    "echo ok",
    "for f in a b\ndo echo $f\ndone",
    "if true; then\necho x\nfi",
    "cat <<EOF\nbody\nEOF",
    "cat <<-'END'\n\tbody\n\tEND",
    "cat <<< here",
    "echo a \\\\",
    "echo '|'",
    "echo a # a comment |",
    "fi",
    "done",
    "echo (",
  ])("runs %j (complete, or an error more input can't fix)", (source) => {
    expect(isIncomplete(source)).toBe(false);
  });
});
