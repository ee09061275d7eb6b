#!/usr/bin/env bash
# The set-up of the README's commands: pinned pnpm, system packages, npm packages.
#
#   bash .ci/setup.sh [demo]   what `npm run demo` needs (also `npm run setup`)
#   bash .ci/setup.sh test     what `npm test` needs: the demo's, plus what only the suites use
#   bash .ci/setup.sh bench    what `npm run bench` needs
#
# Idempotent and quiet when everything is already there; when it has work to do it says what it
# installs and, at the end of each step, how long that took (a fresh clone's npm packages take
# minutes, and a silent wait looks like a hang). Needs no global install: pnpm comes from the
# registry into .tools/ inside the checkout, so a user who is not root can run it.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=${1:-demo}
case "$MODE" in
  demo | test | bench) ;;
  *)
    echo "setup: unknown mode \"$MODE\"; use demo, test or bench (bash .ci/setup.sh test)" >&2
    exit 2
    ;;
esac

started=$SECONDS
worked=false
say() { echo "setup: $*" >&2; }
# A step with work to do says so when it starts (and then the end says how long it all took).
begin() {
  worked=true
  say "$*"
}
# "12 s" since $1 (a value of $SECONDS).
took() { echo "$((SECONDS - $1)) s"; }

# The pnpm version is the one package.json pins in "packageManager".
PNPM_VERSION=$(node -p 'require("./package.json").packageManager.split("@")[1]')
TOOLS_DIR="$PWD/.tools"
# Debian packages, by the command that needs them; each package adds its own here when it lands.
# The demo's: bubblewrap: the OS sandbox around untrusted code (@atrium/kit's launcher; the Python
# executor by default). qemu-system-x86 linux-image-amd64 busybox-static e2fsprogs musl-tools
# xz-utils: @atrium/microvm's real guests, the demo's micro-VM executor (QEMU, the guest kernel,
# the test image, ext4 root filesystems, the guest agent's toolchain, the kernel's decompression).
# python3-minimal libpython3-stdlib: the micro-VM executor's guest image copies Debian's python3.
# qemu-utils: qemu-img, which makes a machine's qcow2 disk overlay (copy-on-write over the image's
# shared ext4, so a snapshot can carry it and forks each get their own).
DEMO_APT=(bubblewrap qemu-system-x86 linux-image-amd64 busybox-static e2fsprogs musl-tools xz-utils python3-minimal libpython3-stdlib qemu-utils)
# Only the suites': chromium: the demo's web UI suite (tests/e2e/demo-web.test.ts, through
# playwright-core). cpio: the micro-VM's initramfs oracle. zsh: the README's shell lines are run
# in bash, dash and zsh (tests/repo/readme-replies-line.test.ts).
TEST_APT=(chromium cpio zsh)
# The suites' and the bench's, not the demo's: haproxy: the load balancer in front of several
# `atrium-docs mcp --http` replicas (tests/e2e/docs-replicas.test.ts, and the bench's 1 vs 2
# replicas), as a deployment runs them; the demo serves one process and needs none. postgresql:
# the server under the palace's PostgreSQL store (packages/palace/test-support/postgres-server.ts
# starts a throwaway cluster of its own from /usr/lib/postgresql/<N>/bin, never Debian's; the root
# suites run two `atrium-palace mcp --http` servers on one and restart it under load); the demo's
# palace is SQLite and needs none.
SERVING_APT=(haproxy postgresql)
case "$MODE" in
  test) APT_PACKAGES=("${DEMO_APT[@]}" "${TEST_APT[@]}" "${SERVING_APT[@]}") ;;
  bench) APT_PACKAGES=("${DEMO_APT[@]}" "${SERVING_APT[@]}") ;;
  *) APT_PACKAGES=("${DEMO_APT[@]}") ;;
esac
APT_PACKAGES+=(${ATRIUM_APT_PACKAGES:-})

# node-gyp must build native addons (better-sqlite3) against the local headers when they exist:
# it would otherwise try to download them, and this network has no route to do that.
if [ -f /usr/include/node/node.h ]; then export npm_config_nodedir=/usr; fi

pnpm_bin="$TOOLS_DIR/bin/pnpm"
if [ ! -x "$pnpm_bin" ] || [ "$("$pnpm_bin" --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  step=$SECONDS
  begin "installing pnpm@$PNPM_VERSION into .tools/ (npm install) …"
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
  say "pnpm@$PNPM_VERSION installed in $(took $step)"
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
    step=$SECONDS
    begin "apt-get install ${missing[*]} (system packages for \`$MODE\`) …"
    log=$(mktemp)
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
      cat "$log" >&2
      rm -f "$log"
      say "could not install ${missing[*]} with apt-get (see above)"
      exit 1
    fi
    rm -f "$log"
    say "system packages installed in $(took $step)"
  elif [ "${CI:-}" = true ]; then
    echo "setup: missing system packages: ${missing[*]} (install them with apt-get as root)" >&2
    exit 1
  else
    if [ "$MODE" = test ]; then needs="tests that need them will skip"; else needs="the demo's Python and micro-VM executors need them"; fi
    echo "setup: missing system packages: ${missing[*]}; $needs (sudo apt-get install ${missing[*]})" >&2
  fi
fi

# The npm packages. The demo needs its own and those of the packages it is built from; the test
# and bench commands need the whole workspace (tests/: the cross-package suites, a browser driver).
# Not `--prod` for the demo: a workspace package's devDependencies also provide its optional
# peers (@atrium/chromafs finds @atrium/chroma through one), and the root's tools come anyway.
full_scope=()
if [ "$MODE" = demo ]; then
  scope=(--filter "@atrium/demo...")
  what="the demo's npm packages"
else
  scope=("${full_scope[@]}")
  what="the workspace's npm packages"
fi
# A record of the manifests and lockfile the last complete install of each mode saw: while they
# are unchanged the install has nothing to do and runs silently; otherwise it shows its progress.
stamp="node_modules/.atrium-setup-$MODE"
inputs=$(cat pnpm-lock.yaml pnpm-workspace.yaml package.json packages/*/package.json apps/*/package.json tools/*/package.json tools/bench-peers/*/package.json tests/package.json 2>/dev/null | cksum)
installed=false
for done in "$MODE" test bench; do
  if [ -f "node_modules/.atrium-setup-$done" ] && [ "$(cat "node_modules/.atrium-setup-$done")" = "$inputs" ]; then
    installed=true
  fi
  # Only the demo is content with another mode's install.
  [ "$MODE" = demo ] || break
done
if [ "$installed" = true ]; then
  pnpm install "${scope[@]}" --reporter=silent
elif [ "${CI:-}" = true ]; then
  step=$SECONDS
  begin "$what (pnpm install --frozen-lockfile) …"
  pnpm install "${scope[@]}" --frozen-lockfile --reporter=append-only >&2
  say "$what installed in $(took $step)"
else
  step=$SECONDS
  begin "$what (pnpm install; a few minutes on a fresh clone) …"
  # pnpm's progress (packages resolved, reused, downloaded, added; each build script as it runs)
  # on stderr, so a command's own output stays alone on stdout. On a terminal it redraws one line.
  if [ -t 2 ]; then
    pnpm install "${scope[@]}" >&2
  else
    # Line by line without a terminal, less the compiler's lines of native builds (better-sqlite3
    # prints a hundred): each build's start and end stay, and all of it is shown if it fails.
    log=$(mktemp)
    if ! pnpm install "${scope[@]}" --reporter=append-only 2>&1 | tee "$log" |
      awk '/^\.\.\.\/[^ ]+ (pre|post)?install: / && !/: (Done|Failed)$/ { next } { print; fflush() }' >&2; then
      grep -E '^\.\.\./[^ ]+ (pre|post)?install: ' "$log" >&2 || true
      rm -f "$log"
      say "pnpm install failed (see above)"
      exit 1
    fi
    rm -f "$log"
  fi
  say "$what installed in $(took $step)"
fi
echo "$inputs" >"$stamp"
if [ "$worked" = true ]; then say "done in $(took $started)"; fi
