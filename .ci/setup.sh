#!/usr/bin/env bash
# One set-up for both README commands (demo and tests): pinned pnpm, system packages, npm packages.
# Idempotent and quiet when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=12.4.2
# Debian packages the test suites need; each package adds its own here when it lands.
APT_PACKAGES=(${ATRIUM_APT_PACKAGES:-})

# node-gyp must build native addons (better-sqlite3) against the local headers when they exist:
# it would otherwise try to download them, and this network has no route to do that.
if [ -f /usr/include/node/node.h ]; then export npm_config_nodedir=/usr; fi

if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  echo "setup: installing pnpm@$PNPM_VERSION" >&2
  npm install -g "pnpm@$PNPM_VERSION" --allow-scripts=pnpm >/dev/null 2>&1 || npm install -g "pnpm@$PNPM_VERSION" >/dev/null
fi

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: apt-get install ${missing[*]}" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  elif [ "${CI:-}" = true ]; then
    echo "setup: missing system packages: ${missing[*]} (install them with apt-get as root)" >&2
    exit 1
  else
    echo "setup: missing system packages: ${missing[*]}; tests that need them will skip (sudo apt-get install ${missing[*]})" >&2
  fi
fi

if [ "${CI:-}" = true ]; then
  pnpm install --frozen-lockfile --reporter=append-only
else
  pnpm install --reporter=silent
fi
