import { DEFAULT_CHROMAFS_LIMITS } from "../../limits.js";
import { isWordChar } from "./gnu-classes.js";
import type { PatternNode } from "./gnu-pattern.js";

/**
 * A Thompson automaton over one or more pattern trees, run from a given start to find every
 * position where a match can end: POSIX's leftmost-longest rule (what GNU grep's `-o` prints)
 * is then the largest. Linear in the text per start, whatever the alternation order.
 */
type Instruction =
  | { op: "char"; test: (char: string) => boolean }
  | { op: "split"; to: [number, number] }
  | { op: "jump"; to: number }
  | { op: "assert"; text: string }
  | { op: "match" };

/** Above this many instructions (large bounded repeats) the caller keeps the regex's own match. */
const MAX_INSTRUCTIONS = DEFAULT_CHROMAFS_LIMITS.maxGrepLongestMatchInstructions;

export class LongestMatcher {
  private constructor(private readonly program: Instruction[]) {}

  /** Null when a tree has a back-reference or expands past the size bound. */
  static build(trees: readonly PatternNode[], flags: string): LongestMatcher | null {
    const program: Instruction[] = [];
    const tests = new Map<string, (char: string) => boolean>();
    const testFor = (source: string) => {
      let test = tests.get(source);
      if (!test) {
        const regex = new RegExp(`^${source}$`, flags);
        const seen = new Map<string, boolean>();
        test = (char) => {
          let result = seen.get(char);
          if (result === undefined) {
            result = regex.test(char);
            seen.set(char, result);
          }
          return result;
        };
        tests.set(source, test);
      }
      return test;
    };
    const emit = (node: PatternNode): boolean => {
      if (program.length > MAX_INSTRUCTIONS) return false;
      switch (node.kind) {
        case "char":
          program.push({ op: "char", test: testFor(node.source) });
          return true;
        case "assert":
          program.push({ op: "assert", text: node.text });
          return true;
        case "seq":
          return node.items.every(emit);
        case "group":
          return emit(node.body);
        case "backref":
          return false;
        case "alt":
          return emitAlternatives(node.items);
        case "repeat":
          return emitRepeat(node.body, node.min, node.max);
      }
    };
    const emitAlternatives = (items: readonly PatternNode[]): boolean => {
      const jumps: { op: "jump"; to: number }[] = [];
      for (let i = 0; i < items.length; i++) {
        if (i < items.length - 1) {
          const split: Instruction = { op: "split", to: [program.length + 1, -1] };
          program.push(split);
          if (!emit(items[i]!)) return false;
          const jump = { op: "jump" as const, to: -1 };
          jumps.push(jump);
          program.push(jump);
          split.to[1] = program.length;
        } else if (!emit(items[i]!)) return false;
      }
      for (const jump of jumps) jump.to = program.length;
      return true;
    };
    const emitRepeat = (body: PatternNode, min: number, max: number | null): boolean => {
      for (let i = 0; i < min; i++) if (!emit(body)) return false;
      if (max === null) {
        const loop = program.length;
        const split: Instruction = { op: "split", to: [loop + 1, -1] };
        program.push(split);
        if (!emit(body)) return false;
        program.push({ op: "jump", to: loop });
        split.to[1] = program.length;
        return true;
      }
      const splits: { op: "split"; to: [number, number] }[] = [];
      for (let i = min; i < max; i++) {
        const split: { op: "split"; to: [number, number] } = { op: "split", to: [program.length + 1, -1] };
        splits.push(split);
        program.push(split);
        if (!emit(body)) return false;
      }
      for (const split of splits) split.to[1] = program.length;
      return true;
    };
    if (!emitAlternatives(trees)) return null;
    program.push({ op: "match" });
    return new LongestMatcher(program);
  }

  /**
   * The largest end of a match starting at `start` in `line` that `accept` allows, or -1.
   * Positions are UTF-16 indexes; the automaton steps one code point at a time.
   */
  longestEnd(line: string, start: number, accept: (end: number) => boolean = () => true): number {
    let best = -1;
    let current = this.closure([0], line, start);
    let position = start;
    for (;;) {
      if (current.matched && accept(position)) best = position;
      if (current.chars.length === 0 || position >= line.length) return best;
      const char = String.fromCodePoint(line.codePointAt(position)!);
      const next = position + char.length;
      const targets: number[] = [];
      for (const pc of current.chars) {
        const instruction = this.program[pc] as { op: "char"; test: (char: string) => boolean };
        if (instruction.test(char)) targets.push(pc + 1);
      }
      current = this.closure(targets, line, next);
      position = next;
    }
  }

  private closure(
    starts: readonly number[],
    line: string,
    position: number,
  ): { chars: number[]; matched: boolean } {
    const seen = new Set<number>();
    const chars: number[] = [];
    let matched = false;
    const stack = [...starts].reverse();
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (seen.has(pc)) continue;
      seen.add(pc);
      const instruction = this.program[pc]!;
      switch (instruction.op) {
        case "char":
          chars.push(pc);
          break;
        case "match":
          matched = true;
          break;
        case "jump":
          stack.push(instruction.to);
          break;
        case "split":
          stack.push(instruction.to[1], instruction.to[0]);
          break;
        case "assert":
          if (assertionHolds(instruction.text, line, position)) stack.push(pc + 1);
          break;
      }
    }
    return { chars, matched };
  }
}

/** The code point just before `position` (undefined at the start). */
export function charBefore(line: string, position: number): string | undefined {
  if (position === 0) return undefined;
  const low = line.charCodeAt(position - 1);
  if (low >= 0xdc00 && low <= 0xdfff && position >= 2) return line.slice(position - 2, position);
  return line[position - 1];
}

export function charAt(line: string, position: number): string | undefined {
  if (position >= line.length) return undefined;
  return String.fromCodePoint(line.codePointAt(position)!);
}

function assertionHolds(text: string, line: string, position: number): boolean {
  switch (text) {
    case "^":
    case "`":
      return position === 0;
    case "$":
    case "'":
      return position === line.length;
  }
  const before = isWordChar(charBefore(line, position));
  const after = isWordChar(charAt(line, position));
  switch (text) {
    case "<":
      return !before && after;
    case ">":
      return before && !after;
    case "b":
      return before !== after;
    default:
      return before === after;
  }
}
