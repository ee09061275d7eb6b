#!/usr/bin/env bash
# One set-up for both README commands (demo and tests): pinned pnpm, system packages, npm packages.
# Idempotent and quiet when everything is already there. Needs no global install: pnpm comes
# from the registry into .tools/ inside the checkout, so a user who is not root can run it.
set -euo pipefail
cd "$(dirname "$0")/.."

# The pnpm version is the one package.json pins in "packageManager".
PNPM_VERSION=$(node -p 'require("./package.json").packageManager.split("@")[1]')
TOOLS_DIR="$PWD/.tools"
# Debian packages the test suites need; each package adds its own here when it lands.
# bubblewrap: the OS sandbox around untrusted code (@atrium/kit's launcher; the Python executor by default).
# chromium: the demo's web UI suite (tests/e2e/demo-web.test.ts, through playwright-core).
# qemu-system-x86 linux-image-amd64 busybox-static e2fsprogs musl-tools xz-utils cpio: @atrium/microvm's real guests
# (QEMU, the guest kernel, the test image, ext4 root filesystems, the guest agent's toolchain, the
# kernel's decompression, the cpio oracle).
# python3-minimal libpython3-stdlib: the micro-VM executor's guest image copies Debian's python3.
APT_PACKAGES=(bubblewrap chromium qemu-system-x86 linux-image-amd64 busybox-static e2fsprogs musl-tools xz-utils cpio python3-minimal libpython3-stdlib ${ATRIUM_APT_PACKAGES:-})

# node-gyp must build native addons (better-sqlite3) against the local headers when they exist:
# it would otherwise try to download them, and this network has no route to do that.
if [ -f /usr/include/node/node.h ]; then export npm_config_nodedir=/usr; fi

pnpm_bin="$TOOLS_DIR/bin/pnpm"
if [ ! -x "$pnpm_bin" ] || [ "$("$pnpm_bin" --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  echo "setup: installing pnpm@$PNPM_VERSION into .tools/" >&2
  log=$(mktemp)
  # pnpm's own install scripts only pick a native build; the JavaScript one works without them.
  if ! npm install --no-save --no-audit --no-fund --ignore-scripts --prefix "$TOOLS_DIR" \
    "pnpm@$PNPM_VERSION" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "setup: could not install pnpm@$PNPM_VERSION with npm (see above)" >&2
    exit 1
  fi
  rm -f "$log"
  # pnpm's own bin stays a shebang-less placeholder until its install script swaps in the native
  # binary, and npm 11 does not run that script: a shell can start the placeholder, but turbo
  # (and anything else that execs it directly) cannot. This shim runs pnpm's Node entry point,
  # which finds the native binary npm installed beside it.
  mkdir -p "$TOOLS_DIR/bin"
  printf '#!/bin/sh\nexec node "%s/node_modules/pnpm/bin/pnpm.mjs" "$@"\n' "$TOOLS_DIR" >"$pnpm_bin"
  chmod +x "$pnpm_bin"
fi
# pnpm runs native builds (better-sqlite3's `node-gyp rebuild`) with node-gyp from PATH and has no
# copy of its own; npm ships one, so a shim points at it rather than downloading another.
node_gyp_js="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
if [ ! -x "$TOOLS_DIR/bin/node-gyp" ] && [ -f "$node_gyp_js" ]; then
  mkdir -p "$TOOLS_DIR/bin"
  printf '#!/bin/sh\nexec node "%s" "$@"\n' "$(readlink -f "$node_gyp_js")" >"$TOOLS_DIR/bin/node-gyp"
  chmod +x "$TOOLS_DIR/bin/node-gyp"
fi
export PATH="$TOOLS_DIR/bin:$PATH"

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
