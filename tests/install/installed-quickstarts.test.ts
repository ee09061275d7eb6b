// The first ten minutes, as a user will live them once the packages are on the public registry:
// HEAD's packages are published to a real npm registry on loopback (.ci/local-registry.mjs; the
// built pass of .ci/run-tests.mjs starts it and passes ATRIUM_REGISTRY_URL, a run by hand starts
// its own), then each package README's "Try it offline" section is followed in an empty project.
// npm installs what the section's `npm i` line names, by name, with only @atrium/* from the local
// registry (a scoped .npmrc line) and the rest from the public registry, plus TypeScript 7.0.2
// (today's `npm i -D typescript`), the workspace's pinned 5.9.3 and @types/node; the example must
// type-check under both with the command each README gives, and print, under plain node with no
// model key, exactly what the workspace-source run (repo/readme-examples) expects. Packages are
// found by their README, so a new one joins by itself.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  installedFromRegistry,
  type LocalRegistry,
  type PackedSet,
  startWithHeadPublished,
} from "../../.ci/local-registry.mjs";
import {
  expectedOutput,
  installedPackages,
  offlineExample,
  packageJsonAdditions,
  packagesWithOfflineExample,
  TSC_CHECK,
} from "../repo/readme-offline-example.ts";
import { limitConcurrency } from "./limit-concurrency.ts";
import { PACK_TIMEOUT_MS, packedHead } from "./packed-set.ts";
import { runProcess } from "./run-process.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const packagesDir = join(root, "packages");
const offline = packagesWithOfflineExample(packagesDir);
const STEP_MS = 240_000;
const twoAtATime = limitConcurrency(2);

/** The workspace's version of a dev tool, so npm finds it in its cache. */
function workspaceVersion(name: string): string {
  const manifest = createRequire(join(root, "package.json")).resolve(`${name}/package.json`);
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}
/** Today's TypeScript (what `npm i -D typescript` gives), and the workspace's pin beside it. */
const TYPESCRIPT_TODAY = "7.0.2";
const TYPESCRIPT_PINNED = workspaceVersion("typescript");
/** What `npm i -D typescript @types/node` adds, with the pinned TypeScript beside today's. */
const TOOLCHAIN = {
  typescript: TYPESCRIPT_TODAY,
  "typescript-pinned": `npm:typescript@${TYPESCRIPT_PINNED}`,
  "@types/node": workspaceVersion("@types/node"),
};
/** The check every README names (TSC_CHECK's arguments), run by path under each TypeScript. */
const tscArguments = TSC_CHECK.split(" ").slice(2);

const npmEnv: NodeJS.ProcessEnv = { ...process.env };
// A native addon (better-sqlite3) builds against local headers when they exist: node-gyp would
// otherwise try to download them (the palace README says so).
if (existsSync("/usr/include/node/node.h")) npmEnv.npm_config_nodedir = "/usr";
/** What the example runs with: no model key, no Atrium settings from the environment. */
const offlineEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
if (process.env.TMPDIR) offlineEnv.TMPDIR = process.env.TMPDIR;

const temp = mkdtempSync(join(tmpdir(), "atrium-install-"));
/** Project folder of each package installed so far, by package folder name. */
const projects = new Map<string, string>();
let published: PackedSet;
let registryUrl: string;
/** The registry this file started, when the built pass did not hand it one. */
let ownRegistry: LocalRegistry | undefined;

beforeAll(async () => {
  const given = process.env.ATRIUM_REGISTRY_URL;
  if (given) {
    registryUrl = given.replace(/\/$/, "");
    published = await packedHead(root); // the set the built pass published: HEAD's, saved
  } else {
    const registry = await startWithHeadPublished(root);
    ownRegistry = registry;
    registryUrl = registry.url;
    published = registry.set;
  }
  const uncommitted = execFileSync("git", ["status", "--porcelain", "--", "packages"], {
    cwd: root,
    encoding: "utf8",
  });
  if (uncommitted !== "") {
    console.warn(
      `tests/install checks the packages of HEAD (${published.commit.slice(0, 7)}): uncommitted changes are not in them\n${uncommitted}`,
    );
  }
}, PACK_TIMEOUT_MS);
// Eight projects of node_modules take a while to remove on a busy disk.
afterAll(async () => {
  await ownRegistry?.stop();
  rmSync(temp, { recursive: true, force: true });
}, 300_000);

/** The README as published: the one inside the tarball. */
function readmeOf(name: string): string {
  const pkg = published.packages.find((candidate) => candidate.name === name);
  if (!pkg) throw new Error(`${name} was not published: it is not a public package that builds at HEAD`);
  return execFileSync("tar", ["-xzOf", pkg.tarball, "package/README.md"], { encoding: "utf8" });
}

describe("published to a local registry, installed by name into an empty project", () => {
  it.concurrent.for(offline)(
    `$name: the README's install line, then its quickstart type-checks (TypeScript ${TYPESCRIPT_TODAY} and ${TYPESCRIPT_PINNED}) and prints what it says, offline`,
    // Queued behind the others at most twice over.
    { timeout: 3 * 3 * STEP_MS },
    ({ dir, name }, { expect }) =>
      twoAtATime(async () => {
        const expected = expectedOutput(dir);
        const readme = readmeOf(name);
        const named = installedPackages(readme);
        expect(named, "the install line names the package itself").toContain(name);

        const project = join(temp, dir);
        mkdirSync(project);
        const manifest = {
          name: `quickstart-${dir}`,
          private: true,
          type: "module",
          // In the manifest, so the one `npm install` below (the README's line) brings them too.
          devDependencies: TOOLCHAIN,
          ...packageJsonAdditions(readme),
        };
        writeFileSync(join(project, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
        // Only the scope comes from the local registry, as a user's .npmrc would say until the
        // packages are on the public one.
        writeFileSync(join(project, ".npmrc"), `@atrium:registry=${registryUrl}/\n`);
        const options = { cwd: project, env: npmEnv, timeoutMs: STEP_MS };
        const flags = ["--prefer-offline", "--no-audit", "--no-fund", "--loglevel=warn"];
        const install = await runProcess("npm", ["install", ...flags, ...named], options);
        expect(install.code, `npm install ${named.join(" ")} failed:\n${install.stderr}`).toBe(0);
        // npm 11 names every install script the project's `allowScripts` does not cover; the
        // README's package.json block must cover those its packages need.
        expect(install.stderr, "the README's package.json block leaves an install script out").not.toContain(
          "not yet covered by allowScripts",
        );
        expect(installedFromRegistry(project, published, registryUrl)).toEqual([]);
        projects.set(dir, project);

        writeFileSync(join(project, "quickstart.mts"), offlineExample(readme));
        for (const typescript of ["typescript", "typescript-pinned"]) {
          const tsc = join(project, "node_modules", typescript, "bin", "tsc");
          expect(
            await runProcess(process.execPath, [tsc, ...tscArguments], {
              cwd: project,
              env: offlineEnv,
              timeoutMs: STEP_MS,
            }),
            `${typescript}: ${TSC_CHECK}`,
          ).toEqual({ code: 0, stdout: "", stderr: "" });
        }

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
