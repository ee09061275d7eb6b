import type { SedAddress, SedCommand, SedEndAddress, SedRegex } from "./sed-script.js";

/** One input line: its text and whether a newline ended it (a last line may lack one). */
export interface SedLine {
  text: string;
  newline: boolean;
}

export interface SedRunResult {
  stdout: string;
  /** From `q N` / `Q N`; null when the script ran to the end of the input. */
  exitCode: number | null;
}

/**
 * A range's state, one per command with two addresses, as GNU's `match_address_p` keeps it
 * (sed/execute.c, sed 4.9): inactive until the start matches; then active until the end is
 * seen, the end being looked for from the line after the start on (a regex end on the start
 * line does not close the range); closed for good once a range starting at a line number ended.
 */
interface RangeState {
  state: "inactive" | "active" | "closed";
  /** The last line of an active range whose end is a line number (`N`, `+N`, `~N`). */
  endLine: number;
}

/** GNU's output of the pattern space: a line that had no newline gets one only if more is written. */
class Output {
  text = "";
  private missingNewline = false;
  write(text: string, newline: boolean): void {
    if (this.missingNewline) this.text += "\n";
    this.text += newline ? `${text}\n` : text;
    this.missingNewline = !newline;
  }
}

class Runner {
  private lastRegex: SedRegex | null = null;
  private readonly ranges = new Map<SedCommand, RangeState>();
  readonly output = new Output();
  lineNumber = 0;
  isLast = false;

  constructor(private readonly quiet: boolean) {}

  regexOf(regex: SedRegex): SedRegex & { regex: RegExp } {
    if (regex.regex) this.lastRegex = regex;
    // The parser refuses `//` before any regex (GNU: "no previous regular expression").
    return this.lastRegex as SedRegex & { regex: RegExp };
  }

  private matches(address: SedAddress, text: string): boolean {
    switch (address.kind) {
      case "line":
        return this.lineNumber === address.line;
      case "last":
        return this.isLast;
      case "step":
        return address.step <= 0
          ? this.lineNumber === address.first
          : this.lineNumber >= address.first && (this.lineNumber - address.first) % address.step === 0;
      case "regex":
        return this.regexOf(address.regex).regex.test(text);
    }
  }

  /** Whether the command's addresses select the current line (before `!`). */
  selects(command: SedCommand, text: string): boolean {
    const { start, end } = command;
    if (!start) return true;
    if (!end) return this.matches(start, text);
    let range = this.ranges.get(command);
    if (!range) {
      // `0,/re/`: the range is open before the first line, so the end may match on line 1.
      range = { state: start.kind === "line" && start.line === 0 ? "active" : "inactive", endLine: 0 };
      this.ranges.set(command, range);
    }
    if (range.state === "closed") return false;
    if (range.state === "active") return this.continues(range, start, end, text);
    if (!this.matches(start, text)) return false;
    const line = this.lineNumber;
    switch (end.kind) {
      case "line":
        // An end at or before the start line: the range is that one line.
        if (end.line <= line) return true;
        range.endLine = end.line;
        break;
      case "plus":
        if (end.count === 0) return true;
        range.endLine = line + end.count;
        break;
      case "multiple":
        // The next multiple after the start line (GNU: `/4/,~4` is lines 4 to 8).
        if (end.of <= 0) return true;
        range.endLine = (Math.floor(line / end.of) + 1) * end.of;
        break;
      default:
        // A regex or `$` end is looked for from the next line on; `$` on the last line ends here.
        if (end.kind === "last" && this.isLast) return true;
    }
    range.state = "active";
    return true;
  }

  private continues(range: RangeState, start: SedAddress, end: SedEndAddress, text: string): boolean {
    const closed = start.kind === "line" ? "closed" : "inactive";
    if (end.kind === "line" || end.kind === "plus" || end.kind === "multiple") {
      if (this.lineNumber >= range.endLine) range.state = closed;
      return this.lineNumber <= range.endLine;
    }
    if (this.matches(end, text)) range.state = closed;
    return true;
  }

  autoprint(space: { text: string; newline: boolean }): void {
    if (!this.quiet) this.output.write(space.text, space.newline);
  }

  /** Whether the command's range is still open after this line (`c` prints at its end). */
  rangeOpen(command: SedCommand): boolean {
    return this.ranges.get(command)?.state === "active";
  }
}

/**
 * One instruction of the flattened script: a command, or the start of a block that jumps past
 * its body (`end`) when its addresses do not select the line. Branches jump to labels.
 */
interface Instruction {
  command: SedCommand;
  end?: number;
}

function flatten(commands: readonly SedCommand[], into: Instruction[] = []): Instruction[] {
  for (const command of commands) {
    if (command.name !== "{") {
      into.push({ command });
      continue;
    }
    const block: Instruction = { command };
    into.push(block);
    flatten(command.body, into);
    block.end = into.length;
  }
  return into;
}

/** The input as sed reads it: line by line, knowing which line is the last. */
class Input {
  private next = 0;
  constructor(private readonly lines: readonly SedLine[]) {}
  get done(): boolean {
    return this.next >= this.lines.length;
  }
  read(runner: Runner): SedLine {
    const line = this.lines[this.next++]!;
    runner.lineNumber = this.next;
    runner.isLast = this.done;
    return line;
  }
}

/** Runs a parsed script over the input lines (every file's, as one stream, as GNU does without `-s`). */
export function runSed(
  commands: readonly SedCommand[],
  lines: readonly SedLine[],
  quiet: boolean,
): SedRunResult {
  const runner = new Runner(quiet);
  const output = runner.output;
  const program = flatten(commands);
  const labels = new Map<string, number>();
  program.forEach(({ command }, at) => {
    if (command.name === ":" && !labels.has(command.label)) labels.set(command.label, at);
  });
  const input = new Input(lines);
  let hold = "";
  /** `a` text, written when the cycle ends or `n`/`N` reads the next line. */
  let appended: string[] = [];
  const flushAppended = () => {
    for (const text of appended) output.write(text, true);
    appended = [];
  };
  const finish = (space: SedLine, exitCode: number | null, print: boolean): SedRunResult => {
    if (print) runner.autoprint(space);
    flushAppended();
    return { stdout: output.text, exitCode };
  };
  while (!input.done) {
    const space: SedLine = { ...input.read(runner) };
    // `t`: a substitution made since the last input line was read
    let substituted = false;
    let deleted = false;
    let pc = 0;
    while (pc < program.length) {
      const { command, end } = program[pc]!;
      pc++;
      if (command.name === ":") continue;
      if (runner.selects(command, space.text) === command.negated) {
        if (end !== undefined) pc = end;
        continue;
      }
      switch (command.name) {
        case "{":
          break;
        case "p":
          output.write(space.text, space.newline);
          break;
        case "P": {
          const cut = space.text.indexOf("\n");
          output.write(cut === -1 ? space.text : space.text.slice(0, cut), true);
          break;
        }
        case "=":
          output.write(String(runner.lineNumber), true);
          break;
        case "d":
          deleted = true;
          pc = program.length;
          break;
        case "c":
          // In a range, the text once, at its end; the line itself is deleted either way.
          if (command.negated || !command.end || !runner.rangeOpen(command)) output.write(command.text, true);
          deleted = true;
          pc = program.length;
          break;
        case "a":
          appended.push(command.text);
          break;
        case "i":
          output.write(command.text, true);
          break;
        case "n":
        case "N": {
          // GNU: with no next line, `n` and `N` print the pattern space (unless -n) and stop.
          if (input.done) return finish(space, null, true);
          if (command.name === "n") runner.autoprint(space);
          flushAppended();
          const next = input.read(runner);
          space.text = command.name === "n" ? next.text : `${space.text}\n${next.text}`;
          space.newline = next.newline;
          substituted = false;
          break;
        }
        case "h":
          hold = space.text;
          break;
        case "H":
          hold = `${hold}\n${space.text}`;
          break;
        case "g":
          space.text = hold;
          break;
        case "G":
          space.text = `${space.text}\n${hold}`;
          break;
        case "x":
          [space.text, hold] = [hold, space.text];
          break;
        case "z":
          space.text = "";
          break;
        case "b":
        case "t":
        case "T": {
          // `t` jumps after a substitution, `T` without one; either resets the flag.
          const jump = command.name === "b" || (command.name === "t") === substituted;
          if (command.name !== "b") substituted = false;
          if (jump) pc = command.label === "" ? program.length : labels.get(command.label)!;
          break;
        }
        case "q":
        case "Q":
          return finish(space, command.exitCode, command.name === "q");
        case "y": {
          const map = new Map(command.from.map((char, i) => [char, command.to[i]!]));
          space.text = Array.from(space.text, (char) => map.get(char) ?? char).join("");
          break;
        }
        case "s": {
          const replaced = substitute(space.text, runner.regexOf(command.regex), command);
          if (replaced !== null) {
            space.text = replaced;
            substituted = true;
            if (command.print) output.write(space.text, space.newline);
          }
          break;
        }
      }
    }
    if (!deleted) runner.autoprint(space);
    flushAppended();
  }
  return { stdout: output.text, exitCode: null };
}

/** GNU's `s`: the Nth match (and, with `g`, every later one), an empty match never right after another. */
function substitute(
  text: string,
  { regex, longest }: SedRegex & { regex: RegExp },
  command: { replacement: string; global: boolean; occurrence: number },
): string | null {
  const search = new RegExp(regex.source, `${regex.flags.replace("g", "")}g`);
  let out = "";
  let copied = 0;
  let count = 0;
  let replaced = false;
  let previousEnd = -1;
  for (let at = 0; at <= text.length; ) {
    search.lastIndex = at;
    let match = search.exec(text);
    if (!match) break;
    const start = match.index;
    let end = start + match[0].length;
    const longer = longest ? longest.longestEnd(text, start) : -1;
    if (longer > end) {
      // The groups of a match that ends there: the same regex, held to that end.
      const rest = [...text.slice(longer)].length;
      const held = new RegExp(
        `(?:${regex.source})(?=[\\s\\S]{${rest}}$)`,
        `${regex.flags.replace("g", "")}y`,
      );
      held.lastIndex = start;
      const exact = held.exec(text);
      if (exact) {
        match = exact;
        end = longer;
      }
    }
    if (start === end && start === previousEnd) {
      // An empty match right where the last one ended is no match (`s/a*/x/g` on "baaac").
      at = start + (text.codePointAt(start)! > 0xffff ? 2 : 1);
      continue;
    }
    count++;
    if (count >= command.occurrence) {
      out += text.slice(copied, start) + expandReplacement(command.replacement, match);
      copied = end;
      replaced = true;
      if (!command.global) break;
    }
    previousEnd = end;
    at = end > start ? end : start + (text.codePointAt(start)! > 0xffff ? 2 : 1);
  }
  return replaced ? out + text.slice(copied) : null;
}

/** The replacement with `&`, `\1`–`\9`, `\n`, `\t` and GNU's case conversions `\U \L \u \l \E`. */
function expandReplacement(replacement: string, match: RegExpExecArray): string {
  let out = "";
  let mode: "U" | "L" | null = null;
  let once: "u" | "l" | null = null;
  const add = (text: string) => {
    for (const char of text) {
      let next = mode === "U" ? char.toUpperCase() : mode === "L" ? char.toLowerCase() : char;
      if (once) {
        next = once === "u" ? next.toUpperCase() : next.toLowerCase();
        once = null;
      }
      out += next;
    }
  };
  for (let i = 0; i < replacement.length; i++) {
    const char = replacement[i]!;
    if (char === "&") add(match[0]);
    else if (char !== "\\" || i + 1 === replacement.length) add(char);
    else {
      const next = replacement[++i]!;
      if (/\d/.test(next)) add(match[Number(next)] ?? "");
      else if (next === "n") add("\n");
      else if (next === "t") add("\t");
      else if (next === "U" || next === "L") mode = next;
      else if (next === "E") mode = once = null;
      else if (next === "u" || next === "l") once = next;
      else add(next);
    }
  }
  return out;
}
