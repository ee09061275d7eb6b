// The first ten minutes, as a user lives them: each package README's "Try it offline" section,
// followed from the packed tarballs. In an empty project outside the workspace, npm installs
// what the section's `npm i` line names (the packages from their tarballs, the rest from the
// registry) plus a TypeScript user's toolchain; the example must type-check with
// `tsc --strict --skipLibCheck false` and print, under plain node with no model key, exactly
// what the workspace-source run (repo/readme-examples) expects. Packages are found by their
// README, so a new one joins by itself.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  expectedOutput,
  installedPackages,
  offlineExample,
  packageJsonAdditions,
  packagesWithOfflineExample,
} from "../repo/readme-offline-example.ts";
import { limitConcurrency } from "./limit-concurrency.ts";
import { PACK_TIMEOUT_MS, type PackedSet, packedHead, tarballsFor } from "./packed-set.ts";
import { runProcess } from "./run-process.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const packagesDir = join(root, "packages");
const offline = packagesWithOfflineExample(packagesDir);
const STEP_MS = 240_000;
const twoAtATime = limitConcurrency(2);

/** The workspace's own TypeScript and Node types, so npm finds them in its cache. */
function workspaceVersion(name: string): string {
  const manifest = createRequire(join(root, "package.json")).resolve(`${name}/package.json`);
  return `${name}@${(JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version}`;
}
const TOOLCHAIN = [workspaceVersion("typescript"), workspaceVersion("@types/node")];

const npmEnv: NodeJS.ProcessEnv = { ...process.env };
// A native addon (better-sqlite3) builds against local headers when they exist: node-gyp would
// otherwise try to download them.
if (existsSync("/usr/include/node/node.h")) npmEnv.npm_config_nodedir = "/usr";
/** What the example runs with: no model key, no Atrium settings from the environment. */
const offlineEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
if (process.env.TMPDIR) offlineEnv.TMPDIR = process.env.TMPDIR;

const temp = mkdtempSync(join(tmpdir(), "atrium-install-"));
/** Project folder of each package installed so far, by package folder name. */
const projects = new Map<string, string>();
let packed: PackedSet;

beforeAll(async () => {
  packed = await packedHead(root);
  const uncommitted = execFileSync("git", ["status", "--porcelain", "--", "packages"], {
    cwd: root,
    encoding: "utf8",
  });
  if (uncommitted !== "") {
    console.warn(
      `tests/install checks the tarballs of HEAD (${packed.commit.slice(0, 7)}): uncommitted changes are not in them\n${uncommitted}`,
    );
  }
}, PACK_TIMEOUT_MS);
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** The README as published: the one inside the tarball. */
function readmeOf(tarball: string): string {
  return execFileSync("tar", ["-xzOf", tarball, "package/README.md"], { encoding: "utf8" });
}

describe("packed tarballs installed with npm into an empty project", () => {
  it.concurrent.for(offline)(
    "$name: the README's install line, then its quickstart type-checks (strict, skipLibCheck false) and prints what it says, offline",
    // Queued behind the others at most twice over.
    { timeout: 3 * 3 * STEP_MS },
    ({ dir, name }, { expect }) =>
      twoAtATime(async () => {
        const expected = expectedOutput(dir);
        const [own] = tarballsFor(packed, [name]); // says why when the package was not packed
        const readme = readmeOf(own as string);
        const named = installedPackages(readme);
        expect(named, "the install line names the package itself").toContain(name);
        const tarballs = tarballsFor(
          packed,
          named.filter((word) => word.startsWith("@atrium/")),
        );
        const fromRegistry = named.filter((word) => !word.startsWith("@atrium/"));

        const project = join(temp, dir);
        mkdirSync(project);
        const manifest = {
          name: `quickstart-${dir}`,
          private: true,
          type: "module",
          ...packageJsonAdditions(readme),
        };
        writeFileSync(join(project, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
        const install = await runProcess(
          "npm",
          [
            "install",
            "--prefer-offline",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            ...tarballs,
            ...fromRegistry,
            ...TOOLCHAIN,
          ],
          { cwd: project, env: npmEnv, timeoutMs: STEP_MS },
        );
        expect(install.code, `npm install failed:\n${install.stderr}`).toBe(0);
        projects.set(dir, project);

        writeFileSync(join(project, "quickstart.mts"), offlineExample(readme));
        const tsc = join(project, "node_modules", "typescript", "bin", "tsc");
        const typeCheck = [
          "--strict",
          "--skipLibCheck",
          "false",
          "--target",
          "es2022",
          "--module",
          "nodenext",
        ];
        expect(
          await runProcess(process.execPath, [tsc, ...typeCheck, "quickstart.mts"], {
            cwd: project,
            env: offlineEnv,
            timeoutMs: STEP_MS,
          }),
        ).toEqual({ code: 0, stdout: "", stderr: "" });

        expect(
          await runProcess(process.execPath, ["quickstart.mjs"], {
            cwd: project,
            env: offlineEnv,
            timeoutMs: STEP_MS,
          }),
        ).toEqual({ code: 0, stdout: expected, stderr: "" });
      }),
  );
});

describe("atrium-docs without the optional @atrium/chroma", () => {
  it(
    "prints ingest's usage, and names the package to add only when an ingest would run",
    async () => {
      const project = projects.get("chromafs");
      if (project === undefined) throw new Error("the chromafs quickstart above did not install");
      expect(
        existsSync(join(project, "node_modules", "@atrium", "chroma")),
        "the chromafs README's install line leaves @atrium/chroma out",
      ).toBe(false);
      const cli = join(project, "node_modules", ".bin", "atrium-docs");
      const options = { cwd: project, env: offlineEnv, timeoutMs: STEP_MS };

      // The installed CLI prints exactly what the workspace's source prints.
      const tsx = createRequire(join(packagesDir, "chromafs", "package.json")).resolve("tsx");
      const source = join(packagesDir, "chromafs", "src", "cli", "main.ts");
      const fromSource = await runProcess(
        process.execPath,
        ["--import", pathToFileURL(tsx).href, "--conditions=@atrium/source", source, "ingest", "--help"],
        options,
      );
      expect(fromSource.stdout.split("\n")[0]).toBe(
        "Usage: atrium-docs ingest <dir> --collection <name> [--chroma-url URL | --path DIR] [options]",
      );
      expect(await runProcess(cli, ["ingest", "--help"], options)).toEqual({
        code: 0,
        stdout: fromSource.stdout,
        stderr: "",
      });

      mkdirSync(join(project, "docs"));
      writeFileSync(join(project, "docs", "index.md"), "# Docs\n");
      expect(
        await runProcess(cli, ["ingest", "docs", "--collection", "docs", "--path", "chroma-data"], options),
      ).toEqual({
        code: 1,
        stdout: "",
        stderr:
          "atrium-docs ingest: writing a Chroma collection needs @atrium/chroma (and chromadb): npm install @atrium/chroma\n",
      });
    },
    STEP_MS,
  );
});

describe("the root README's npm path", () => {
  it(
    "runs in the agent's project: a scripted model through npx atrium-agent, offline",
    async () => {
      const project = projects.get("agent");
      if (project === undefined) throw new Error("the agent quickstart above did not install");
      const readme = readFileSync(join(root, "README.md"), "utf8");
      const section = readme.split(/^## Use it from npm$/m)[1]?.split(/^## /m)[0] ?? "";
      const block = /^```sh\n([\s\S]*?)^```$/m.exec(section)?.[1];
      if (block === undefined) throw new Error('no ```sh block under "## Use it from npm" in README.md');
      // The project has its packages already; the rest is what a user types next.
      const commands = block
        .split("\n")
        .filter((line) => line.trim() !== "" && !/^npm i(nstall)? /.test(line));
      expect(commands.some((line) => line.includes("npx atrium-agent run"))).toBe(true);
      const result = await runProcess("bash", ["-euo", "pipefail", "-c", commands.join("\n")], {
        cwd: project,
        env: offlineEnv,
        timeoutMs: STEP_MS,
      });
      expect({ code: result.code, stdout: result.stdout }, result.stderr).toEqual({
        code: 0,
        stdout: "42\n",
      });
      expect(result.stderr).toContain("━━ Final answer ━━\nsuccess after 1 step");
    },
    STEP_MS,
  );
});
