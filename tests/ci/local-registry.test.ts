// The local registry of the built pass (.ci/local-registry.mjs), on its own: a real Verdaccio on
// loopback that a package is published to with npm and installed from by name, that serves
// nothing outside @atrium/*, that tells a tarball it did not publish, and that is gone, by its
// PID, once stopped.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installedFromRegistry, type LocalRegistry, startLocalRegistry } from "../../.ci/local-registry.mjs";
import { isAlive } from "../process-alive.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const dir = mkdtempSync(join(tmpdir(), "atrium-local-registry-"));
let registry: LocalRegistry;

/** A tarball laid out as `npm pack` lays one out, of a package printing `said`. */
function tarball(name: string, version: string, said: string): string {
  const folder = join(dir, `${name.replace("/", "-")}-${version}-${said}`);
  mkdirSync(join(folder, "package"), { recursive: true });
  const manifest = { name, version, type: "module", main: "index.js" };
  writeFileSync(join(folder, "package", "package.json"), JSON.stringify(manifest));
  writeFileSync(join(folder, "package", "index.js"), `export const said = ${JSON.stringify(said)};\n`);
  const file = `${folder}.tgz`;
  execFileSync("tar", ["-czf", file, "-C", folder, "package"]);
  return file;
}

// A zombie has ended: its parent was killed and init reaps it late on a loaded machine.
const isRunning = isAlive;

// Installs Verdaccio into .tools/verdaccio on a first run (about 20 s).
beforeAll(async () => {
  registry = await startLocalRegistry(root);
}, 180_000);
afterAll(async () => {
  await registry?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the local registry", () => {
  it("serves a package published with npm to an install by name, byte for byte", async () => {
    const published = tarball("@atrium/hello", "1.0.0", "hello");
    await registry.publish([published]);

    const project = join(dir, "project");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), '{ "name": "p", "private": true, "type": "module" }\n');
    writeFileSync(join(project, ".npmrc"), registry.npmrc);
    expect(registry.npmrc).toBe(`@atrium:registry=${registry.url}/\n`);
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "@atrium/hello"], {
      cwd: project,
      stdio: "pipe",
    });
    const printed = execFileSync(
      process.execPath,
      ["--input-type=module", "-e", 'import { said } from "@atrium/hello"; console.log(said);'],
      { cwd: project, encoding: "utf8" },
    );
    expect(printed).toBe("hello\n");

    const set = {
      commit: "c",
      failed: [],
      packages: [{ name: "@atrium/hello", version: "1.0.0", tarball: published, manifest: {} }],
    };
    expect(installedFromRegistry(project, set, registry.url)).toEqual([]);
    // Another tarball of the same name and version is not the one installed.
    const other = {
      ...set,
      packages: [{ ...set.packages[0], tarball: tarball("@atrium/hello", "1.0.0", "bye") }],
    };
    expect(installedFromRegistry(project, other as typeof set, registry.url)).toEqual([
      expect.stringMatching(
        /^@atrium\/hello's installed tarball is not the one published \(integrity sha512-/,
      ),
    ]);
  }, 120_000);

  it("has no uplink: a package outside @atrium is not served", async () => {
    const response = await fetch(`${registry.url}/zod`);
    expect(response.ok).toBe(false);
  });

  it("is gone by its PID once stopped, and its folder with it", async () => {
    const second = await startLocalRegistry(root);
    expect(isRunning(second.pid)).toBe(true);
    expect((await fetch(`${second.url}/-/ping`)).ok).toBe(true);
    await second.stop();
    expect(isRunning(second.pid)).toBe(false);
    expect(() => execFileSync("test", ["-e", second.dir])).toThrow();
  }, 120_000);

  it("ends when the process that started it is killed (SIGKILL, no clean-up)", async () => {
    const module = join(root, ".ci", "local-registry.mjs");
    const script = `const { startLocalRegistry } = await import(${JSON.stringify(module)});
const registry = await startLocalRegistry(${JSON.stringify(root)});
console.log(registry.pid, registry.dir);
setInterval(() => {}, 1000);`;
    const starter = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const [pid, folder] = await new Promise<[number, string]>((resolve, reject) => {
      starter.stdout.setEncoding("utf8").once("data", (line: string) => {
        const [id, path] = line.trim().split(" ");
        resolve([Number(id), path as string]);
      });
      starter.once("exit", (code) =>
        reject(new Error(`the starter exited (${code}) before the registry ran`)),
      );
    });
    expect(isRunning(pid)).toBe(true);
    starter.kill("SIGKILL");
    // Its watchdog removes the folder within a second; the process itself then takes about 10 s
    // more to exit on this machine (measured 2026-12-02: 11 threads wind down), so 30 s.
    const deadline = Date.now() + 30_000;
    while (isRunning(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(isRunning(pid)).toBe(false);
    expect(() => execFileSync("test", ["-e", folder])).toThrow();
  }, 120_000);
});
