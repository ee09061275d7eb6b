#!/usr/bin/env node
import { cliMain } from "@atrium/kit/cli";
import { docsCli } from "./docs-cli.js";

cliMain(docsCli());
