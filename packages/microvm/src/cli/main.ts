#!/usr/bin/env node
import { cliMain, packageVersion } from "@atrium/kit/cli";
import { cpCommand } from "./commands/cp-command.js";
import { createCommand } from "./commands/create-command.js";
import { doctorCommand } from "./commands/doctor-command.js";
import { execCommand } from "./commands/exec-command.js";
import { forkCommand } from "./commands/fork-command.js";
import { lsCommand } from "./commands/ls-command.js";
import { packCommand } from "./commands/pack-command.js";
import { restoreCommand } from "./commands/restore-command.js";
import { rmCommand } from "./commands/rm-command.js";
import { runCommand } from "./commands/run-command.js";
import { snapshotCommand } from "./commands/snapshot-command.js";
import { startCommand } from "./commands/start-command.js";
import { stopCommand } from "./commands/stop-command.js";

cliMain({
  name: "atrium-vm",
  description: "QEMU micro-VMs from OCI images: network off unless the config turns it on.",
  version: () => packageVersion(import.meta.url),
  commands: [
    runCommand,
    createCommand,
    startCommand,
    execCommand,
    cpCommand,
    stopCommand,
    lsCommand,
    rmCommand,
    packCommand,
    snapshotCommand,
    restoreCommand,
    forkCommand,
    doctorCommand,
  ],
  footer: "Progress goes to stderr; ATRIUM_VM_QUIET=1 silences it.",
});
