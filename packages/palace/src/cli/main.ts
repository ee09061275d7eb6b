#!/usr/bin/env node
import { errorMessage } from "@atrium/spec";
import { runCli } from "./run-cli.js";

runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`atrium-palace: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  },
);
