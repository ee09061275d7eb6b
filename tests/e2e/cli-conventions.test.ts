// The conventions every Atrium CLI keeps (@atrium/kit/cli), checked on all four: `--version`
// prints the package's version, `--help` lists the commands, a usage error (an unknown command or
// flag) is one line on stderr with exit 2, a failure one line with exit 1, and `--json` prints one
// JSON document. Each CLI starts from its TypeScript sources, or under ATRIUM_TEST_TARGET=dist
// (the built pass of .ci/run-tests.mjs) the `bin` its installed tarball links (test-target.ts).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ChromaServer, startChromaServer } from "@atrium/chroma";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliArgs, targetVersion } from "../test-target.ts";

const PACKAGES = fileURLToPath(new URL("../../packages", import.meta.url));
/** A fresh process each, from sources through tsx on 2 loaded cores: seconds each. */
const TEST_MS = 180_000;

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number | null;
}

/** What the environment must not decide for these runs: where things are, debug output. */
const {
  ATRIUM_DEBUG: _debug,
  ATRIUM_CHROMA_URL: _chromaUrl,
  ATRIUM_CHROMA_PATH: _chromaPath,
  ATRIUM_PALACE: _palace,
  ATRIUM_MODEL: _model,
  ...baseEnv
} = process.env;

function run(packageDir: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliArgs(packageDir), ...args], {
      cwd: packageDir,
      env: { ...baseEnv, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), TEST_MS - 10_000);
    child.once("error", reject);
    child.once("close", (exitCode) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, exitCode });
    });
  });
}

/** One line on stderr, nothing on stdout. */
function oneLine(result: Run, exitCode: number) {
  expect(result.exitCode, result.stderr).toBe(exitCode);
  expect(result.stdout).toBe("");
  expect(result.stderr).toMatch(/^[^\n]+\n$/);
}

interface CliCase {
  /** The package folder under packages/. */
  dir: string;
  name: string;
  commands: string[];
  /** A command line with a flag that command does not have. */
  unknownFlag: string[];
  /** A command line that fails (exit 1), with what it needs. */
  failure: () => { args: string[]; env?: Record<string, string> };
  /** A command line whose output is data, printed with --json. */
  json: () => Promise<{ args: string[]; env?: Record<string, string> }>;
}

let work: string;
let chroma: ChromaServer;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "atrium-cli-conventions-"));
  chroma = await startChromaServer({ path: join(work, "chroma") });
}, 60_000);

afterAll(async () => {
  await chroma?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const CLIS: CliCase[] = [
  {
    dir: "agent",
    name: "atrium-agent",
    commands: ["run", "doctor"],
    unknownFlag: ["doctor", "--frobnicate"],
    failure: () => {
      const replies = join(work, "failing-model.json");
      writeFileSync(replies, JSON.stringify([{ error: { message: "model not found", status: 404 } }]));
      return { args: ["run", "Task.", "--model", `scripted:${replies}`, "--quiet"] };
    },
    json: async () => ({ args: ["doctor", "--json"] }),
  },
  {
    dir: "chromafs",
    name: "atrium-docs",
    commands: ["ingest", "sh", "mcp", "hash-token"],
    unknownFlag: ["sh", "--frobnicate"],
    failure: () => ({
      args: ["ingest", join(work, "no-such-docs"), "--collection", "docs", "--chroma-url", chroma.url],
    }),
    json: async () => {
      const docs = join(work, "docs");
      mkdirSync(docs, { recursive: true });
      writeFileSync(join(docs, "index.md"), "# Docs\n\nOne page.\n");
      return { args: ["ingest", docs, "--collection", "conventions", "--chroma-url", chroma.url, "--json"] };
    },
  },
  {
    dir: "palace",
    name: "atrium-palace",
    commands: [
      "init",
      "mine",
      "search",
      "wake-up",
      "status",
      "kg",
      "export",
      "import",
      "repair",
      "mcp",
      "hook",
      "bench",
    ],
    unknownFlag: ["status", "--frobnicate"],
    failure: () => ({
      args: ["import", join(work, "no-such-export.jsonl")],
      env: { ATRIUM_PALACE: join(work, "never-made"), ATRIUM_CHROMA_URL: chroma.url },
    }),
    json: async () => {
      const palace = join(work, "palace");
      const env = { ATRIUM_CHROMA_URL: chroma.url };
      const created = await run(join(PACKAGES, "palace"), ["init", palace], env);
      expect(created.exitCode, created.stderr).toBe(0);
      return { args: ["status", palace, "--json"], env };
    },
  },
  {
    dir: "microvm",
    name: "atrium-vm",
    commands: ["run", "create", "start", "exec", "cp", "stop", "ls", "rm", "pack", "doctor"],
    unknownFlag: ["ls", "--frobnicate"],
    failure: () => ({
      args: ["pack", "run", join(work, "no-such.atrium-vm"), "--", "true"],
      env: { ATRIUM_VM_QUIET: "1", ATRIUM_VM_STATE: join(work, "vm-state") },
    }),
    json: async () => ({ args: ["ls", "--json"], env: { ATRIUM_VM_STATE: join(work, "vm-state") } }),
  },
];

describe.each(CLIS)("$name", (cli) => {
  const packageDir = join(PACKAGES, cli.dir);
  const version = targetVersion(packageDir);

  it(
    "--version prints the package's version; --help lists the commands; both exit 0",
    async () => {
      const [long, short, help] = await Promise.all([
        run(packageDir, ["--version"]),
        run(packageDir, ["-v"]),
        run(packageDir, ["--help"]),
      ]);
      expect(long).toEqual({ stdout: `${version}\n`, stderr: "", exitCode: 0 });
      expect(short).toEqual(long);
      expect(help.exitCode).toBe(0);
      expect(help.stderr).toBe("");
      expect(help.stdout.startsWith(`Usage: ${cli.name} <command> [options]\n`)).toBe(true);
      for (const command of cli.commands) expect(help.stdout).toMatch(new RegExp(`\\n  ${command}  +\\S`));
    },
    TEST_MS,
  );

  it(
    "an unknown command or flag is one line on stderr naming the --help to read: exit 2",
    async () => {
      const [command, flag] = await Promise.all([
        run(packageDir, ["frobnicate"]),
        run(packageDir, cli.unknownFlag),
      ]);
      oneLine(command, 2);
      expect(command.stderr).toMatch(
        new RegExp(`^${cli.name}: unknown command "frobnicate": .* \\(see ${cli.name} --help\\)\\n$`),
      );
      oneLine(flag, 2);
      const at = `${cli.name} ${cli.unknownFlag[0]}`;
      expect(flag.stderr).toBe(`${at}: Unknown option '--frobnicate' (see ${at} --help)\n`);
    },
    TEST_MS,
  );

  it(
    "a failure is one line on stderr, no stack: exit 1",
    async () => {
      const { args, env } = cli.failure();
      const failed = await run(packageDir, args, env);
      oneLine(failed, 1);
      expect(failed.stderr.startsWith(`${cli.name}`)).toBe(true);
    },
    TEST_MS,
  );

  it(
    "--json prints one JSON document on stdout",
    async () => {
      const { args, env } = await cli.json();
      const result = await run(packageDir, args, env);
      // doctor says 1 where the host lacks something; its report is JSON all the same.
      expect([0, 1], result.stderr).toContain(result.exitCode);
      expect(() => JSON.parse(result.stdout)).not.toThrow();
    },
    TEST_MS,
  );
});
