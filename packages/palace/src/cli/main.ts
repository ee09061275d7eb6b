#!/usr/bin/env node
import { cliMain } from "@atrium/kit/cli";
import { PALACE_CLI } from "./palace-cli.js";

cliMain(PALACE_CLI);
