/**
 * One option of a command's flag table. A table lists only what the command models; the
 * command line is read the way GNU's getopt_long reads it:
 * - short options bundle (`-rn`); one that takes a value takes the rest of its bundle or else
 *   the next argument (`-A3`, `-A 3`, `-epattern`);
 * - a long option takes its value after `=` or as the next argument (`--max-count=3`,
 *   `--max-count 3`); one without a value refuses `=` (`--count=3`);
 * - options and operands mix (GNU permutes them); `--` ends the options; `-` is an operand.
 */
export interface Flag<O> {
  /** Its one-letter names (`"iy"`: both `-i` and `-y`). */
  short?: string;
  /** Its long names, without `--`. */
  long?: string | readonly string[];
  /**
   * `required`: the option takes a value; `optional`: a long option that takes one only after
   * `=` (`--color[=WHEN]`, given "" without). Absent: a switch.
   */
  value?: "required" | "optional";
  /** Applies the option (`value` is "" for a switch); returns what is wrong with it, if anything. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a flag that only sets a field returns nothing
  apply(options: O, value: string): string | undefined | void;
}

export interface FlagTableSettings<O> {
  /** A long option may be cut to a prefix no other long option has (`--max` for `--max-count`). */
  abbreviations?: boolean;
  /** Whether `--` ends the options (default true); false makes `--` an unknown option. */
  doubleDash?: boolean;
  /** Applies a run of digits inside a bundle (grep's `-NUM`); without it a digit is an unknown option. */
  // biome-ignore lint/suspicious/noConfusingVoidType: as `Flag.apply`
  digits?(options: O, digits: string): string | undefined | void;
  /**
   * What an option the table does not take is: the end of the parse, the line `unsupported`
   * (default); an operand like any other word; or kept aside (`unknown`, its arguments as
   * given, the rest of its bundle included) while the parse goes on. A missing value or one the
   * flag refuses counts as unknown too.
   */
  unknown?: "unsupported" | "operand" | "keep";
}

/** One option as it was given: its table entry and its arguments (`["-m", "5"]`, `["-C1"]`, `["-i"]`). */
export interface GivenFlag<O> {
  flag: Flag<O>;
  tokens: string[];
}

/**
 * The command line read against the table: the options (the object given, as the flags applied
 * them), the operands in order and every option as given; or the argument the table does not
 * model (an unknown option, a missing value, a value its flag refuses, with the flag's `problem`),
 * which the caller then leaves to just-bash's own command.
 */
export type ParsedFlags<O> =
  | { ok: true; options: O; operands: string[]; given: GivenFlag<O>[]; unknown: string[] }
  | { ok: false; unsupported: string; problem?: string };

export interface FlagTable<O> {
  /** Reads `args`, applying each option to `options` (a fresh object of the command's defaults). */
  parse(args: readonly string[], options: O): ParsedFlags<O>;
}

/** A command's flag table (see `Flag` for how a command line is read against it). */
export function defineFlags<O>(flags: readonly Flag<O>[], settings: FlagTableSettings<O> = {}): FlagTable<O> {
  const shorts = new Map<string, Flag<O>>();
  const longs = new Map<string, Flag<O>>();
  for (const flag of flags) {
    for (const letter of flag.short ?? "") shorts.set(letter, flag);
    for (const name of typeof flag.long === "string" ? [flag.long] : (flag.long ?? [])) longs.set(name, flag);
  }
  const longNamed = (given: string): Flag<O> | undefined => {
    const exact = longs.get(given);
    if (exact || !settings.abbreviations || given === "") return exact;
    const matches = [...longs.keys()].filter((name) => name.startsWith(given));
    return matches.length === 1 ? longs.get(matches[0] as string) : undefined;
  };
  const operandsOnly = settings.unknown === "operand";
  /** Whether every letter of a bundle up to its first valued one is in the table. */
  const knownBundle = (arg: string) => {
    for (const letter of arg.slice(1)) {
      if (settings.digits && /\d/.test(letter)) continue;
      const flag = shorts.get(letter);
      if (!flag) return false;
      if (flag.value === "required") return true;
    }
    return true;
  };

  return {
    parse(args, options) {
      const operands: string[] = [];
      const given: GivenFlag<O>[] = [];
      const unknown: string[] = [];
      const keep = settings.unknown === "keep";
      const refuse = (unsupported: string, problem?: string): ParsedFlags<O> =>
        problem ? { ok: false, unsupported, problem } : { ok: false, unsupported };
      /** Applies one option as given in `arg`; the refusal when its flag finds a problem. */
      const applied = (flag: Flag<O>, value: string, tokens: string[], arg: string) => {
        const problem = flag.apply(options, value);
        if (!problem) given.push({ flag, tokens });
        else if (keep) unknown.push(...tokens);
        else return refuse(arg, problem);
        return undefined;
      };
      for (let i = 0; i < args.length; i++) {
        const arg = args[i] as string;
        if (arg === "--" && settings.doubleDash !== false) {
          operands.push(...args.slice(i + 1));
          break;
        }
        if (!arg.startsWith("-") || arg === "-") {
          operands.push(arg);
          continue;
        }
        if (arg.startsWith("--")) {
          const eq = arg.indexOf("=");
          const flag = longNamed(eq === -1 ? arg.slice(2) : arg.slice(2, eq));
          const missing = flag?.value === "required" && eq === -1 && i + 1 >= args.length;
          if (!flag || (eq !== -1 && !flag.value) || missing) {
            if (keep) unknown.push(arg);
            else if (operandsOnly && !flag) operands.push(arg);
            else return refuse(arg);
            continue;
          }
          const tokens = [arg];
          let value = "";
          if (eq !== -1) value = arg.slice(eq + 1);
          else if (flag.value === "required") {
            value = args[++i] as string;
            tokens.push(value);
          }
          const refused = applied(flag, value, tokens, arg);
          if (refused) return refused;
          continue;
        }
        if (operandsOnly && !knownBundle(arg)) {
          operands.push(arg);
          continue;
        }
        for (let at = 1; at < arg.length; at++) {
          const letter = arg[at] as string;
          if (settings.digits && /\d/.test(letter)) {
            let end = at + 1;
            while (end < arg.length && /\d/.test(arg[end] as string)) end++;
            const problem = settings.digits(options, arg.slice(at, end));
            if (problem && !keep) return refuse(arg, problem);
            if (problem) unknown.push(`-${arg.slice(at, end)}`);
            at = end - 1;
            continue;
          }
          const flag = shorts.get(letter);
          const missing = flag?.value === "required" && at + 1 === arg.length && i + 1 >= args.length;
          if (!flag || missing) {
            // What follows an unknown letter may be its value: it stays with it.
            if (keep) unknown.push(`-${arg.slice(at)}`);
            else return refuse(flag ? arg : `-${letter}`);
            break;
          }
          let value = "";
          let tokens = [`-${letter}`];
          if (flag.value === "required" && at + 1 < arg.length) {
            value = arg.slice(at + 1);
            tokens = [`-${letter}${value}`];
          } else if (flag.value === "required") {
            value = args[++i] as string;
            tokens.push(value);
          }
          const refused = applied(flag, value, tokens, arg);
          if (refused) return refused;
          if (flag.value === "required") break;
        }
      }
      return { ok: true, options, operands, given, unknown };
    },
  };
}

/** A switch's `apply`: sets `fields` of the options. */
export function sets<O>(fields: NoInfer<Partial<O>>): (options: O) => void {
  return (options) => {
    Object.assign(options as object, fields);
  };
}

/** A flag's value as a count (digits only), or what is wrong with it. */
export function countValue(value: string, set: (count: number) => void): string | undefined {
  if (!/^\d+$/.test(value)) return `invalid number ${value}`;
  set(Number(value));
  return undefined;
}
