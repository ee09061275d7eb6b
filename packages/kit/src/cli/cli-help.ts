import type { CliCommand, CliEntry, CliOption } from "./cli-types.js";

const HELP_ROW = ["-h, --help", "show this help"] as const;
const VERSION_ROW = ["-v, --version", "print the version"] as const;

/** `atrium-palace mine --help`: usage lines, description, arguments and options, footer. */
export function commandHelp(path: readonly string[], command: CliCommand): string {
  const prefix = path.join(" ");
  const forms = typeof command.usage === "string" ? [command.usage] : command.usage;
  const usage = forms.map(
    (form, at) => `${at === 0 ? "Usage: " : "       "}${prefix}${form ? ` ${form}` : ""}`,
  );
  const argumentRows = command.arguments ?? [];
  const optionRows: (readonly [string, string])[] = [
    ...Object.entries(command.options ?? {}).map(
      ([name, option]) => [optionLabel(name, option), option.help] as const,
    ),
    HELP_ROW,
  ];
  const width = columnWidth([...argumentRows, ...optionRows]);
  return sections([
    usage.join("\n"),
    command.description,
    argumentRows.length > 0 ? `Arguments:\n${table(argumentRows, width)}` : undefined,
    `Options:\n${table(optionRows, width)}`,
    command.footer,
  ]);
}

/**
 * `atrium-palace --help` (with `version`: the program's own) or `atrium-palace kg --help`: the
 * commands with their summaries, and where each one's help is.
 */
export function groupHelp(
  path: readonly string[],
  group: { description?: string; commands: readonly CliEntry[]; footer?: string },
  withVersion = false,
): string {
  const prefix = path.join(" ");
  const commandRows = group.commands.map((entry) => [entry.name, entry.summary] as const);
  const optionRows: (readonly [string, string])[] = withVersion ? [HELP_ROW, VERSION_ROW] : [HELP_ROW];
  const width = columnWidth([...commandRows, ...optionRows]);
  return sections([
    `Usage: ${prefix} <command> [options]`,
    group.description,
    `Commands:\n${table(commandRows, width)}`,
    `Options:\n${table(optionRows, width)}`,
    [group.footer?.trimEnd(), `Run \`${prefix} <command> --help\` for a command's options.`]
      .filter(Boolean)
      .join("\n"),
  ]);
}

/** The names of a group's commands for a message: "query, add or stats". */
export function commandNames(commands: readonly CliEntry[]): string {
  const names = commands.map((entry) => entry.name);
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}

function optionLabel(name: string, option: CliOption): string {
  if (option.label !== undefined) return option.label;
  const short = option.short === undefined ? "" : `-${option.short}, `;
  const value = option.type === "string" ? ` ${option.value ?? "VALUE"}` : "";
  return `${short}--${name}${value}`;
}

/** The left column's width: the longest label and two spaces, at least 20 wide. */
function columnWidth(rows: readonly (readonly [string, string])[]): number {
  return Math.max(20, ...rows.map(([label]) => label.length + 2));
}

/** Rows of `label  help`, a help's further lines under its first, each row indented two spaces. */
function table(rows: readonly (readonly [string, string])[], width: number): string {
  const indent = " ".repeat(width + 2);
  return rows
    .map(([label, help]) => {
      const [first, ...more] = help.split("\n");
      return [`  ${label.padEnd(width)}${first}`, ...more.map((line) => `${indent}${line}`)].join("\n");
    })
    .join("\n");
}

/** The parts that are there, a blank line between two, a newline at the end. */
function sections(parts: readonly (string | undefined)[]): string {
  return `${parts
    .filter((part): part is string => part !== undefined && part.trim() !== "")
    .map((part) => part.trimEnd())
    .join("\n\n")}\n`;
}
