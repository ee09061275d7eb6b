#!/usr/bin/env bash
# `npm run demo -- ARGS`: the set-up, then the demo itself with ARGS, started the way apps/demo's
# `start` script starts it (its sources through tsx, in apps/demo) but not through pnpm: pnpm
# took `--help` for its own (printing its help, not the demo's) and closed every error and
# Ctrl-C with its `[ELIFECYCLE] … failed` lines. `exec` leaves npm with the demo as its child,
# so the demo's exit code (2 a usage mistake, 130 Ctrl-C) is npm's, and its message the last word.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/.ci/setup.sh"
cd "$root/apps/demo"
start=$(node -p 'require("./package.json").scripts.start')
# The script is a plain command line (node and its flags); the arguments follow it unchanged.
eval "exec $start \"\$@\""
