import { describe, expect, it } from "vitest";
import { countValue, defineFlags, type Flag, sets } from "./flag-table.js";

interface Toy {
  all: boolean;
  number: boolean;
  count: number | undefined;
  names: string[];
  color: string;
}

const toy = (): Toy => ({ all: false, number: false, count: undefined, names: [], color: "" });

const FLAGS: readonly Flag<Toy>[] = [
  { short: "a", long: "all", apply: sets({ all: true }) },
  { short: "n", long: ["number", "numbered"], apply: sets({ number: true }) },
  {
    short: "m",
    long: "max-count",
    value: "required",
    apply: (o, v) => countValue(v, (n) => Object.assign(o, { count: n })),
  },
  { short: "e", long: "name", value: "required", apply: (o, v) => void o.names.push(v) },
  {
    long: "color",
    value: "optional",
    apply: (o, v) => {
      o.color = v || "auto";
    },
  },
];

describe("flag table", () => {
  const table = defineFlags(FLAGS);

  it("bundles switches, takes values glued or separate, and permutes operands", () => {
    expect(table.parse(["x", "-an", "-m3", "y", "-e", "-z", "--", "-a"], toy())).toMatchObject({
      ok: true,
      options: { all: true, number: true, count: 3, names: ["-z"] },
      operands: ["x", "y", "-a"],
    });
    expect(table.parse(["-am", "5", "-"], toy())).toMatchObject({
      ok: true,
      options: { all: true, count: 5 },
      operands: ["-"],
    });
  });

  it("takes long values after = or as the next argument; a switch refuses =", () => {
    expect(table.parse(["--max-count=2", "--name", "b", "--color"], toy())).toMatchObject({
      ok: true,
      options: { count: 2, names: ["b"], color: "auto" },
    });
    expect(table.parse(["--all=yes"], toy())).toEqual({ ok: false, unsupported: "--all=yes" });
  });

  it("records each option as given, for passing it on", () => {
    const parsed = table.parse(["-an", "-m3", "-e", "x"], toy());
    expect(parsed.ok && parsed.given.map((given) => given.tokens)).toEqual([
      ["-a"],
      ["-n"],
      ["-m3"],
      ["-e", "x"],
    ]);
  });

  it("refuses unknown options, missing values and bad values, naming the argument", () => {
    expect(table.parse(["-ak"], toy())).toEqual({ ok: false, unsupported: "-k" });
    expect(table.parse(["--bogus"], toy())).toEqual({ ok: false, unsupported: "--bogus" });
    expect(table.parse(["-m"], toy())).toEqual({ ok: false, unsupported: "-m" });
    expect(table.parse(["-m", "x"], toy())).toEqual({
      ok: false,
      unsupported: "-m",
      problem: "invalid number x",
    });
    // Abbreviations only where the table allows them.
    expect(table.parse(["--max=1"], toy())).toEqual({ ok: false, unsupported: "--max=1" });
  });

  it("takes unambiguous prefixes of long options when asked", () => {
    const gnu = defineFlags(FLAGS, { abbreviations: true });
    expect(gnu.parse(["--max=1", "--al"], toy())).toMatchObject({
      ok: true,
      options: { count: 1, all: true },
    });
    // `numbe` fits both names of one option, `n` fits two options.
    expect(gnu.parse(["--numbe"], toy())).toEqual({ ok: false, unsupported: "--numbe" });
    expect(gnu.parse(["--n"], toy())).toEqual({ ok: false, unsupported: "--n" });
    expect(gnu.parse(["--number"], toy())).toMatchObject({ ok: true, options: { number: true } });
  });

  it("reads digit runs with `digits`, and `--` as an option without `doubleDash`", () => {
    const digits = defineFlags(FLAGS, {
      digits: (o, run) => {
        o.count = Number(run);
      },
      doubleDash: false,
    });
    expect(digits.parse(["-12a"], toy())).toMatchObject({ ok: true, options: { count: 12, all: true } });
    expect(digits.parse(["--", "x"], toy())).toEqual({ ok: false, unsupported: "--" });
  });

  it("treats unknown options as operands, or keeps them aside, when asked", () => {
    const words = defineFlags(FLAGS, { unknown: "operand" });
    expect(words.parse(["-x", "-ax", "--y", "-n"], toy())).toMatchObject({
      ok: true,
      options: { number: true, all: false },
      operands: ["-x", "-ax", "--y"],
    });
    const kept = defineFlags(FLAGS, { unknown: "keep" });
    expect(kept.parse(["-aTq", "--bogus", "-m", "x", "f", "-e"], toy())).toMatchObject({
      ok: true,
      options: { all: true },
      operands: ["f"],
      unknown: ["-Tq", "--bogus", "-m", "x", "-e"],
    });
  });
});
