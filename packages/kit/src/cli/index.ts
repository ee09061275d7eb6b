export { commandHelp, groupHelp } from "./cli-help.js";
export {
  type CliArgs,
  type CliBooleanOption,
  type CliCommand,
  type CliEntry,
  type CliGroup,
  type CliIo,
  type CliOption,
  type CliOptions,
  type CliOutput,
  type CliProgram,
  type CliStringOption,
  type CliValues,
  defineCommand,
} from "./cli-types.js";
export { choiceOption, integerOption, jsonText } from "./option-values.js";
export { packageVersion } from "./package-version.js";
export { type ProgressBar, type ProgressBarOptions, progressBar } from "./progress-bar.js";
export { cliMain, runCli } from "./run-cli.js";
export { EXIT_CODES, UsageError } from "./usage-error.js";
