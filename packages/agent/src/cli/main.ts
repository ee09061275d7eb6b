#!/usr/bin/env node
import { cliMain, packageVersion } from "@atrium/kit/cli";
import { doctorCommand } from "./doctor-command.js";
import { runCommand } from "./run-command.js";

cliMain({
  name: "atrium-agent",
  description: "Runs an agent on a task, its code actions in a sandbox, or checks what this host can run.",
  version: () => packageVersion(import.meta.url),
  commands: [runCommand, doctorCommand],
  footer: 'Example: atrium-agent run "What is 6 times 7?" --model openai:gpt-4o-mini',
});
