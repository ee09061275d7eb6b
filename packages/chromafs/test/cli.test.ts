import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliArgs } from "../../../tests/test-target.ts";
import { type SmallDocsDir, writeSmallDocs } from "./fixtures/small-docs.js";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

/** The real CLI in a child process: sources through tsx, or the installed bin (test-target.ts). */
function atriumDocs(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [...cliArgs(PACKAGE_DIR), ...args], {
    cwd: PACKAGE_DIR,
    input,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, ATRIUM_CHROMA_URL: "", ATRIUM_CHROMA_PATH: "" },
  });
  return { stdout: result.stdout, stderr: result.stderr, exitCode: result.status };
}

describe("atrium-docs sh", () => {
  let dir: SmallDocsDir;
  beforeAll(() => {
    dir = writeSmallDocs();
  });
  afterAll(() => dir.remove());

  it("-c prints exactly what the command prints and exits with its code", () => {
    expect(
      atriumDocs([
        "sh",
        "--dir",
        dir.root,
        "--groups",
        "staff",
        "-c",
        "grep -rl Falcon / ; cat /secret/plans.md",
      ]),
    ).toEqual({
      stdout: "/internal/roadmap.md\n",
      stderr: "cat: /secret/plans.md: No such file or directory\n",
      exitCode: 1,
    });
  });

  it("reads commands line by line from stdin, keeping the directory", () => {
    expect(atriumDocs(["sh", "--dir", dir.root], "cd /guides\nls\nhead -1 deploy.md\n")).toEqual({
      stdout: "deploy.md\nquickstart.md\n# Deploy\n",
      stderr: "",
      exitCode: 0,
    });
  });

  it("exit N ends the shell with N before the next line runs; a bare exit uses the last status", () => {
    expect(atriumDocs(["sh", "--dir", dir.root], "exit 3\necho after\n")).toEqual({
      stdout: "",
      stderr: "",
      exitCode: 3,
    });
    expect(atriumDocs(["sh", "--dir", dir.root], "cat /nope.md\nexit\necho after\n")).toEqual({
      stdout: "",
      stderr: "cat: /nope.md: No such file or directory\n",
      exitCode: 1,
    });
  });

  it("reads a command over several lines, as bash does, keeping directory and variables", () => {
    const input = [
      "for f in deploy quickstart",
      "do head -1 /guides/$f.md",
      "done",
      "cd /guides; n=2",
      "ls |",
      "  wc -l",
      "cat <<EOF",
      "$n in $PWD",
      "EOF",
      "false",
      'echo "status $?"',
      "",
    ].join("\n");
    expect(atriumDocs(["sh", "--dir", dir.root], input)).toEqual({
      stdout: "# Deploy\n# Quickstart\n2\n2 in /guides\nstatus 1\n",
      stderr: "",
      exitCode: 0,
    });
  });

  it("a command stopped at an execution limit does not end the shell", () => {
    expect(atriumDocs(["sh", "--dir", dir.root], "while :; do :; done\necho after $?\n")).toEqual({
      stdout: "after 126\n",
      stderr: "bash: too many commands executed (>10000), increase executionLimits.maxCommandCount\n",
      exitCode: 0,
    });
  });

  it("input ending inside a command is a syntax error (exit 2)", () => {
    expect(atriumDocs(["sh", "--dir", dir.root], "echo before\nfor f in a\n")).toEqual({
      stdout: "before\n",
      stderr: "bash: syntax error: Parse error at 1:11: Expected DO, got EOF\n",
      exitCode: 2,
    });
  });

  it("trims --groups and ignores empty entries", () => {
    expect(
      atriumDocs(["sh", "--dir", dir.root, "--groups", " staff , ,ops,", "-c", "grep -rl Falcon /"]),
    ).toEqual({
      stdout: "/internal/roadmap.md\n",
      stderr: "",
      exitCode: 0,
    });
  });

  it("names an unreachable Chroma URL and a missing location", () => {
    const unreachable = atriumDocs([
      "sh",
      "--collection",
      "docs",
      "--chroma-url",
      "http://127.0.0.1:9",
      "-c",
      "ls",
    ]);
    expect(unreachable.exitCode).toBe(1);
    expect(unreachable.stdout).toBe("");
    expect(unreachable.stderr).toContain("No Chroma server answers at http://127.0.0.1:9");
    expect(atriumDocs(["sh", "--collection", "docs", "-c", "ls"])).toEqual({
      stdout: "",
      stderr:
        "atrium-docs sh: say where Chroma is: --chroma-url <url> or --path <data dir> (or set ATRIUM_CHROMA_URL / ATRIUM_CHROMA_PATH) (see atrium-docs sh --help)\n",
      exitCode: 2,
    });
  });
});

describe("atrium-docs usage errors exit 2", () => {
  it("no command, an unknown option, a bad --port, a missing ingest <dir>", () => {
    expect(atriumDocs([])).toEqual({
      stdout: "",
      stderr: "atrium-docs: missing command: use ingest, sh, mcp or hash-token (see atrium-docs --help)\n",
      exitCode: 2,
    });
    const unknown = atriumDocs(["sh", "--bogus"]);
    expect([unknown.stdout, unknown.stderr.split("\n")[0], unknown.exitCode]).toEqual([
      "",
      "atrium-docs sh: Unknown option '--bogus' (see atrium-docs sh --help)",
      2,
    ]);
    expect(atriumDocs(["mcp", "--dir", "/nonexistent", "--port", "http"])).toEqual({
      stdout: "",
      stderr:
        'atrium-docs mcp: --port must be a whole number from 0 to 65535, got "http" (see atrium-docs mcp --help)\n',
      exitCode: 2,
    });
    const ingest = atriumDocs(["ingest", "--collection", "docs"]);
    expect([ingest.stdout, ingest.stderr.split("\n")[0], ingest.exitCode]).toEqual([
      "",
      "atrium-docs ingest: missing <dir> (see atrium-docs ingest --help)",
      2,
    ]);
  });

  it("a missing docs directory or groups file fails (exit 1) before any server starts or data dir is made", () => {
    const base = mkdtempSync(join(tmpdir(), "chromafs-cli-"));
    try {
      const data = join(base, "data");
      const missingDocs = atriumDocs(["ingest", join(base, "docs"), "--collection", "docs", "--path", data]);
      expect([missingDocs.stdout, missingDocs.stderr.split("\n")[0], missingDocs.exitCode]).toEqual([
        "",
        `atrium-docs ingest: the docs directory ${join(base, "docs")} does not exist; give the folder that holds the .md/.mdx pages`,
        1,
      ]);
      const missingGroups = atriumDocs([
        "ingest",
        base,
        "--collection",
        "docs",
        "--path",
        data,
        "--groups-file",
        join(base, "groups.json"),
      ]);
      expect([missingGroups.stderr.split("\n")[0], missingGroups.exitCode]).toEqual([
        `atrium-docs ingest: --groups-file ${join(base, "groups.json")} does not exist`,
        1,
      ]);
      expect(readdirSync(base)).toEqual([]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("atrium-docs mcp --http: who may connect is said explicitly", () => {
  it("needs --tokens-file or --no-auth, refuses --no-auth off loopback and --groups beside tokens, before opening any store", () => {
    const base = ["mcp", "--dir", "/nonexistent", "--http"];
    const cases: [string[], string][] = [
      [
        [],
        "--http needs --tokens-file FILE (the bearer tokens allowed in) or --no-auth (anyone who can reach the port; loopback only)",
      ],
      [
        ["--no-auth", "--host", "0.0.0.0"],
        "--no-auth serves anyone who reaches the port, so it is refused on --host 0.0.0.0; use a loopback host or --tokens-file",
      ],
      [["--no-auth", "--tokens-file", "t.json"], "give either --tokens-file or --no-auth, not both"],
      [
        ["--tokens-file", "t.json", "--groups", "staff"],
        "--groups does not apply with --tokens-file: each token's groups decide what its client sees",
      ],
    ];
    for (const [flags, message] of cases) {
      expect(atriumDocs([...base, ...flags])).toEqual({
        stdout: "",
        stderr: `atrium-docs mcp: ${message} (see atrium-docs mcp --help)\n`,
        exitCode: 2,
      });
    }
    expect(atriumDocs(["mcp", "--dir", "/nonexistent", "--no-auth"])).toEqual({
      stdout: "",
      stderr:
        "atrium-docs mcp: --tokens-file, --no-auth, --port and --host apply only with --http (see atrium-docs mcp --help)\n",
      exitCode: 2,
    });
    // A tokens file that is not there is a failure (exit 1), found before any store opens.
    expect(atriumDocs([...base, "--tokens-file", "/nonexistent/tokens.json"])).toEqual({
      stdout: "",
      stderr:
        "atrium-docs mcp: tokens file /nonexistent/tokens.json: ENOENT: no such file or directory, stat '/nonexistent/tokens.json'\n",
      exitCode: 1,
    });
  });
});

describe("atrium-docs hash-token", () => {
  it("prints the SHA-256 of the token's first stdin line, as sha256sum would", () => {
    expect(atriumDocs(["hash-token"], "a-token-of-32-characters-or-so!!\nignored\n")).toEqual({
      stdout: `${createHash("sha256").update("a-token-of-32-characters-or-so!!").digest("hex")}\n`,
      stderr: "",
      exitCode: 0,
    });
    expect(atriumDocs(["hash-token"], "short\n")).toEqual({
      stdout: "",
      stderr:
        "atrium-docs hash-token: a token needs at least 16 characters, got 5; make one with `openssl rand -hex 32` (see atrium-docs hash-token --help)\n",
      exitCode: 2,
    });
    const withArgument = atriumDocs(["hash-token", "secret-on-the-command-line"]);
    expect([withArgument.stderr.split("\n")[0], withArgument.exitCode]).toEqual([
      "atrium-docs hash-token: takes no arguments (the token is read from stdin) (see atrium-docs hash-token --help)",
      2,
    ]);
  });
});
