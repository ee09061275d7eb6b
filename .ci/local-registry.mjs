#!/usr/bin/env node
// A real npm registry (Verdaccio) on loopback, with its own temporary storage and config, that
// HEAD's packed tarballs are published to, so the built pass and tests/install install every
// @atrium package by name (`npm i @atrium/palace`), as a user will once they are on the public
// registry. Only @atrium/* is served here (no uplink): a test project's .npmrc scopes it with
// `@atrium:registry=<url>`, so every other package comes from the public registry as for any user.
//
// Verdaccio is a test-only tool: it installs on first use into .tools/verdaccio (its own
// package.json, never the workspace's dependencies, never the demo's set-up). 6.8.0 is the newest
// that runs on Node 20 (6.10 wants Node 22); its node-fetch is pinned to 2.7.0, which it needs.
//
//   node .ci/local-registry.mjs    starts a registry, publishes HEAD's set, prints its URL and
//                                  PID, and serves until Ctrl-C (for trying an install by hand)
import { execFile, execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

export const VERDACCIO_VERSION = "6.8.0";
const READY_MS = 60_000;
const STOP_MS = 5_000;
/** The scope served by the local registry; everything else comes from the public one. */
export const SCOPE = "@atrium";

/** .tools/verdaccio's manifest: Verdaccio alone, with the pin it needs on Node 20. */
function toolManifest() {
  return {
    name: "atrium-test-registry",
    private: true,
    description: "Verdaccio for the built test pass (.ci/local-registry.mjs); not part of the workspace.",
    dependencies: { verdaccio: VERDACCIO_VERSION },
    // Verdaccio 6.8's own range lets npm pick node-fetch 3, which is ESM-only and breaks it.
    overrides: { "node-fetch": "2.7.0" },
  };
}

/** Installs Verdaccio into `<root>/.tools/verdaccio` unless that version is there; returns its bin. */
export function installVerdaccio(root, log = () => {}) {
  const dir = join(root, ".tools", "verdaccio");
  const bin = join(dir, "node_modules", "verdaccio", "bin", "verdaccio");
  const installed = join(dir, "node_modules", "verdaccio", "package.json");
  if (existsSync(installed) && JSON.parse(readFileSync(installed, "utf8")).version === VERDACCIO_VERSION)
    return bin;
  log(`installing verdaccio@${VERDACCIO_VERSION} into .tools/verdaccio (test-only)`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(toolManifest(), null, 2)}\n`);
  try {
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--no-package-lock"], {
      cwd: dir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 << 20,
    });
  } catch (error) {
    throw new Error(
      `local-registry: npm install of verdaccio@${VERDACCIO_VERSION} in ${dir} failed (exit ${error.status})\n${error.stdout}${error.stderr}`,
    );
  }
  return bin;
}

/** A port free on loopback now (Verdaccio cannot report one it picked itself). */
function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

function config(dir, port) {
  // No uplinks: a name outside @atrium/* is not served at all, so a test project that forgot
  // the scoped setting fails instead of silently reaching the public registry through here.
  return `storage: ${JSON.stringify(join(dir, "storage"))}
auth:
  htpasswd:
    file: ${JSON.stringify(join(dir, "htpasswd"))}
    max_users: 1
uplinks: {}
packages:
  "${SCOPE}/*":
    access: $all
    publish: $authenticated
  "**":
    access: $authenticated
    publish: $authenticated
server:
  keepAliveTimeout: 60
listen: 127.0.0.1:${port}
log: { type: stdout, format: pretty, level: warn }
web:
  enable: false
`;
}

async function waitReady(url, child, logFile) {
  const deadline = Date.now() + READY_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `local-registry: verdaccio exited (${child.exitCode ?? child.signalCode}) before it served ${url}\n${readFileSync(logFile, "utf8")}`,
      );
    try {
      const response = await fetch(`${url}/-/ping`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`local-registry: verdaccio did not answer ${url}/-/ping within ${READY_MS / 1000} s`);
}

/** Registers the one user and returns its token: a throwaway credential for this registry only. */
async function throwawayToken(url) {
  const name = "atrium-ci";
  const response = await fetch(`${url}/-/user/org.couchdb.user:${name}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, password: `pw-${process.pid}-${Date.now()}`, type: "user", roles: [] }),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok || typeof body.token !== "string")
    throw new Error(
      `local-registry: adding a user to ${url} failed (${response.status}): ${JSON.stringify(body)}`,
    );
  return body.token;
}

/**
 * Starts Verdaccio on a free loopback port with its own storage under a temporary folder.
 * Returns `{ url, pid, dir, npmrc, publish(tarballs), stop() }`: `npmrc` is the line a test
 * project's .npmrc needs; `stop()` ends it by its PID and removes the folder (also called when
 * this process exits, so a failed run leaves no registry behind).
 */
export async function startLocalRegistry(root, log = () => {}) {
  const bin = installVerdaccio(root, log);
  const dir = mkdtempSync(join(tmpdir(), "atrium-registry-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  writeFileSync(join(dir, "config.yaml"), config(dir, port));
  const logFile = join(dir, "verdaccio.log");
  // Output to a file, not a pipe: the suite waits in spawnSync while it runs, and a full pipe
  // would stall it.
  const out = openSync(logFile, "a");
  // A watchdog inside Verdaccio's process ends it, and removes its folder, once this process is
  // gone, however that happened (SIGKILL, a crash): no registry outlives the suite that started it.
  const watchdog = join(dir, "watchdog.cjs");
  writeFileSync(
    watchdog,
    // Its parent's exit reparents it at once (a killed parent not yet reaped still answers kill 0).
    `setInterval(() => {
  if (process.ppid === ${process.pid}) return;
  require("node:fs").rmSync(${JSON.stringify(dir)}, { recursive: true, force: true });
  process.exit(0);
}, 500).unref();
`,
  );
  const child = spawn(process.execPath, ["--require", watchdog, bin, "--config", join(dir, "config.yaml")], {
    cwd: dir,
    stdio: ["ignore", out, out],
    env: { ...process.env, VERDACCIO_APPDIR: dir },
  });
  const pid = child.pid;
  const killOnExit = () => {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", killOnExit);
  let stopped;
  const stop = () => {
    stopped ??= (async () => {
      process.off("exit", killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        process.kill(pid, "SIGTERM");
        const timer = setTimeout(() => child.exitCode === null && process.kill(pid, "SIGKILL"), STOP_MS);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    })();
    return stopped;
  };
  try {
    await waitReady(url, child, logFile);
    const token = await throwawayToken(url);
    const userconfig = join(dir, "publish.npmrc");
    writeFileSync(userconfig, `//127.0.0.1:${port}/:_authToken=${token}\n`);
    const publish = (tarballs) => publishAll(url, userconfig, tarballs);
    return { url, pid, dir, npmrc: `${SCOPE}:registry=${url}/\n`, publish, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** `npm publish` of each tarball, two at a time; a failure names the tarball and npm's words. */
async function publishAll(url, userconfig, tarballs) {
  const queue = [...tarballs];
  const worker = async () => {
    for (let tarball = queue.shift(); tarball !== undefined; tarball = queue.shift()) {
      try {
        await execFileAsync(
          "npm",
          [
            "publish",
            tarball,
            `--registry=${url}/`,
            `--userconfig=${userconfig}`,
            "--access=public",
            "--loglevel=error",
          ],
          // The tarball's own manifest decides what is published; no workspace config applies.
          { cwd: tmpdir(), maxBuffer: 16 << 20 },
        );
      } catch (error) {
        throw new Error(`local-registry: npm publish ${tarball} failed\n${error.stdout}${error.stderr}`);
      }
    }
  };
  await Promise.all([worker(), worker()]);
}

/**
 * Starts a registry and publishes HEAD's packed set (`.ci/packed-tarballs.mjs`) to it: what the
 * built pass and tests/install share. Throws, with the registry stopped, when a package does not build.
 */
export async function startWithHeadPublished(root, log = () => {}) {
  const { packedHead } = await import("./packed-tarballs.mjs");
  const set = packedHead(root, log);
  if (set.failed.length > 0) {
    const names = set.failed.map((pkg) => `${pkg.name} (${pkg.message})`).join(", ");
    throw new Error(`local-registry: not every package builds at ${set.commit.slice(0, 7)}: ${names}`);
  }
  const registry = await startLocalRegistry(root, log);
  try {
    const start = performance.now();
    await registry.publish(set.packages.map((pkg) => pkg.tarball));
    log(
      `published ${set.packages.length} packages of ${set.commit.slice(0, 7)} to ${registry.url} in ${((performance.now() - start) / 1000).toFixed(1)} s`,
    );
    return { ...registry, set };
  } catch (error) {
    await registry.stop();
    throw error;
  }
}

/** npm's integrity string of a file: `sha512-<base64>`. */
function integrityOf(file) {
  return `sha512-${createHash("sha512").update(readFileSync(file)).digest("base64")}`;
}

/**
 * Checks that each @atrium package installed in `project` is byte for byte the tarball of `set`
 * that was published to the registry at `url` (npm's cache could otherwise serve an older one of
 * the same version). Returns the problems, one line each; [] when all is well.
 */
export function installedFromRegistry(project, set, url) {
  const lock = JSON.parse(readFileSync(join(project, "node_modules", ".package-lock.json"), "utf8"));
  const problems = [];
  const prefix = `${url.replace(/\/$/, "")}/`;
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    const name = path.split("node_modules/").at(-1);
    if (!name?.startsWith(`${SCOPE}/`)) continue;
    const pkg = set.packages.find((candidate) => candidate.name === name);
    // npm 11 leaves `resolved` out of its lockfiles for registry packages; when it is there, it
    // must be this registry. The integrity is always there, and says which bytes were installed.
    if (!pkg) problems.push(`${name} (${path}) is not a package of the published set`);
    else if (entry.resolved !== undefined && !entry.resolved.startsWith(prefix))
      problems.push(`${name} came from ${entry.resolved}, not the local registry ${url}`);
    else if (entry.integrity !== integrityOf(pkg.tarball))
      problems.push(`${name}'s installed tarball is not the one published (integrity ${entry.integrity})`);
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(import.meta.url), "..", "..");
  const log = (message) => console.error(`local-registry: ${message}`);
  try {
    const registry = await startWithHeadPublished(root, log);
    console.log(`${registry.url} (pid ${registry.pid}); in a project's .npmrc: ${registry.npmrc.trim()}`);
    console.log("Ctrl-C stops it.");
    const end = () => registry.stop().then(() => process.exit(0));
    process.once("SIGINT", end);
    process.once("SIGTERM", end);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
