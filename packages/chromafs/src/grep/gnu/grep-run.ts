import { rethrowIfFatal } from "@atrium/spec";
import type { ExecResult, ResolvedCommandContext } from "just-bash";
import { decodeStdin } from "../../byte-strings/just-bash-bytes.js";
import { pageViewChunks } from "../../fs/page-views.js";
import { compileMatcher, type LineMatcher } from "./gnu-matcher.js";
import { type GrepInput, resolveInputs } from "./grep-inputs.js";
import type { GrepOptions } from "./grep-options.js";
import { lineEnd, lineStarts } from "./line-starts.js";

/** Output of one grep call, built up across files (GNU's `--` separator spans files). */
class GrepOutput {
  readonly parts: string[] = [];
  /** Whether any line (match or context, shown or not) was output: the next group needs `--`. */
  private anyGroup = false;
  constructor(private readonly separators: boolean) {}
  /** Starts a line at `lineIndex` of the current file, after the file's last output line `last`. */
  beforeLine(lineIndex: number, last: number): void {
    if (this.separators && this.anyGroup && lineIndex !== last + 1) this.parts.push("--\n");
    this.anyGroup = true;
  }
  push(text: string): void {
    this.parts.push(text);
  }
}

/**
 * GNU grep 3.8 over the inputs: selected lines with `:`, context lines with `-`, a `--` line
 * between groups that are not adjacent (across files too), a line selected inside another's
 * context printed as selected; `-m` stops selecting and prints the trailing context as context;
 * `-o` prints each leftmost-longest match and keeps the separators of the groups it would have
 * printed. Null when the patterns use syntax the matcher does not model.
 */
export async function runGrep(options: GrepOptions, ctx: ResolvedCommandContext): Promise<ExecResult | null> {
  const patterns = [...options.patterns.flatMap((pattern) => pattern.split("\n"))];
  for (const file of options.patternFiles) {
    try {
      const text =
        file === "-" ? decodeStdin(ctx.stdin) : await ctx.fs.readFile(ctx.fs.resolvePath(ctx.cwd, file));
      if (text !== "") for (const line of text.replace(/\n$/, "").split("\n")) patterns.push(line);
    } catch (error) {
      rethrowIfFatal(error);
      return { stdout: "", stderr: `grep: ${file}: No such file or directory\n`, exitCode: 2 };
    }
  }
  const matcher =
    patterns.length === 0
      ? { test: () => false, matches: () => [], markLines: () => {} }
      : compileMatcher(patterns, {
          syntax: options.syntax,
          ignoreCase: options.ignoreCase,
          word: options.word,
          line: options.line,
        });
  if (!matcher) return null;
  const { inputs, errors } = await resolveInputs(options, ctx.cwd, ctx.fs);
  const manyFiles = options.operands.length > 1;
  const out = new GrepOutput(
    options.contextGiven && !options.count && !options.filesWithMatches && !options.filesWithoutMatch,
  );
  let selectedAny = false;
  const stderr: string[] = options.noMessages ? [] : [...errors];
  // Only matching lines matter here, so a page's chunks can be read apart (see `pageViewChunks`).
  const chunksWillDo = options.before === 0 && options.after === 0 && !options.invert && !options.byteOffset;
  for (const input of inputs) {
    // A cancelled command stops between files (the accelerated grep reads the fs directly).
    ctx.signal?.throwIfAborted();
    let segments: readonly Segment[];
    const chunks = input.path !== null && chunksWillDo ? pageViewChunks(input.path) : undefined;
    if (chunks) segments = chunks;
    else {
      try {
        const text = input.path === null ? decodeStdin(ctx.stdin) : await ctx.fs.readFile(input.path);
        segments = [{ line: 1, text }];
      } catch (error) {
        rethrowIfFatal(error);
        if (!options.noMessages) stderr.push(`grep: ${input.shown}: No such file or directory\n`);
        errors.push(input.shown);
        continue;
      }
    }
    const named =
      options.withFilename ??
      (manyFiles || (options.recursive && (input.fromWalk || options.operands.length === 0)));
    const selected = grepFile(segments, input, named, options, matcher, out, stderr);
    if (selected > 0) selectedAny = true;
    if (selected > 0 && options.quiet) return { stdout: "", stderr: "", exitCode: 0 };
  }
  const exitCode = errors.length > 0 && !(options.quiet && selectedAny) ? 2 : selectedAny ? 0 : 1;
  return { stdout: out.parts.join(""), stderr: stderr.join(""), exitCode };
}

/**
 * The lines of the segment grep is in, and how it prefixes them (file name, line number, byte
 * offset). One per file, reset for each segment, so no closure is made per segment.
 */
class SegmentLines {
  text = "";
  /** The file line index (0-based) of the segment's first line. */
  base = 0;
  starts: number[] = [];
  lineCount = 0;
  constructor(
    /** The name printed before each line (NUL-terminated for `-Z`), or null for none. */
    private readonly name: string | null,
    private readonly options: GrepOptions,
  ) {}
  reset(text: string, base: number): void {
    this.text = text;
    this.base = base;
    this.starts = lineStarts(text);
    this.lineCount = this.starts.length;
  }
  lineAt(index: number): string {
    return this.text.slice(this.starts[index]!, lineEnd(this.text, this.starts, index));
  }
  prefix(index: number, sep: string, offset = 0): string {
    const { name, options } = this;
    return (
      (name === null ? "" : options.nullAfterName ? name : `${name}${sep}`) +
      (options.lineNumber ? `${this.base + index + 1}${sep}` : "") +
      (options.byteOffset
        ? `${Buffer.byteLength(this.text.slice(0, this.starts[index]!)) + offset}${sep}`
        : "")
    );
  }
}

/** A run of a file's lines: the whole file, or one chunk of a page read apart. */
interface Segment {
  /** The file line (1-based) the text's first line is. */
  line: number;
  text: string;
}

/**
 * One file through the matcher, given as its segments in order (line numbers only grow);
 * returns how many lines it selected. Lines between segments are taken to hold no match.
 */
function grepFile(
  segments: readonly Segment[],
  input: GrepInput,
  named: boolean,
  options: GrepOptions,
  matcher: LineMatcher,
  out: GrepOutput,
  stderr: string[],
): number {
  const limit = options.maxCount ?? Number.POSITIVE_INFINITY;
  const listing = options.filesWithMatches || options.filesWithoutMatch;
  const quietLines = options.quiet || options.count || listing;
  const binary = segments.some((segment) => segment.text.includes("\u0000"));
  const name = named ? (options.nullAfterName ? `${input.shown}\u0000` : input.shown) : "";
  const context = options.before > 0 || options.after > 0;
  let count = 0;
  /** The file line index (0-based) last output. */
  let last = -2;
  let afterLeft = 0;
  let done = false;
  const segment = new SegmentLines(named ? name : null, options);
  const emitContext = (index: number) => {
    out.beforeLine(segment.base + index, last);
    last = segment.base + index;
    if (!options.onlyMatching) out.push(`${segment.prefix(index, "-")}${segment.lineAt(index)}\n`);
  };
  for (const { text, line } of segments) {
    segment.reset(text, line - 1);
    const { base, lineCount } = segment;
    const marks = new Uint8Array(lineCount);
    matcher.markLines(text, segment.starts, marks);
    for (let index = 0; index < lineCount; index++) {
      if (count >= limit) {
        // -m: selection is over; the trailing context is printed as context, matches included.
        if (afterLeft > 0 && !quietLines && !binary) {
          emitContext(index);
          afterLeft--;
          continue;
        }
        done = true;
        break;
      }
      const selected = (marks[index] === 1) !== options.invert;
      if (!selected) {
        if (afterLeft > 0 && !quietLines && !binary) {
          emitContext(index);
          afterLeft--;
        } else if (!context && !options.invert) {
          // Nothing to print until the next marked line: jump there.
          const next = marks.indexOf(1, index + 1);
          index = (next === -1 ? lineCount : next) - 1;
        }
        continue;
      }
      count++;
      if (quietLines) {
        if (options.quiet || options.filesWithMatches) {
          done = true;
          break;
        }
        continue;
      }
      if (binary) {
        stderr.push(`grep: ${input.shown}: binary file matches\n`);
        done = true;
        break;
      }
      for (let before = Math.max(last - base + 1, index - options.before, 0); before < index; before++)
        emitContext(before);
      out.beforeLine(base + index, last);
      last = base + index;
      afterLeft = options.after;
      const line = segment.lineAt(index);
      if (!options.onlyMatching) out.push(`${segment.prefix(index, ":")}${line}\n`);
      else if (!options.invert) {
        for (const [start, end] of matcher.matches(line)) {
          const offset = options.byteOffset ? Buffer.byteLength(line.slice(0, start)) : 0;
          out.push(`${segment.prefix(index, ":", offset)}${line.slice(start, end)}\n`);
        }
      }
    }
    if (done) break;
  }
  const end = options.nullAfterName ? "\u0000" : "\n";
  if (options.filesWithMatches) {
    if (count > 0) out.push(`${input.shown}${end}`);
  } else if (options.filesWithoutMatch) {
    if (count === 0) out.push(`${input.shown}${end}`);
  } else if (options.count && !options.quiet)
    out.push(`${named ? (options.nullAfterName ? name : `${name}:`) : ""}${count}\n`);
  return count;
}
