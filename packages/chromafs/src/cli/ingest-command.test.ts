import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commandHelp, runCli } from "@atrium/kit/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE_PAGES, startTestChroma, writeFixtureCorpus } from "../../test/fixtures/ingest-fixtures.js";
import type { IngestSummary } from "../ingest/ingest-docs.js";
import { docsCli } from "./docs-cli.js";
import { ingestCommand } from "./ingest-command.js";

const INGEST_HELP = commandHelp(["atrium-docs", "ingest"], ingestCommand());

function capture(isTTY = false) {
  let text = "";
  return {
    stream: { isTTY, write: (chunk: string) => (text += chunk) },
    text: () => text,
  };
}

async function run(argv: string[], tty = false) {
  const stdout = capture();
  const stderr = capture(tty);
  const code = await runCli(docsCli(), ["ingest", ...argv], { stdout: stdout.stream, stderr: stderr.stream });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe("atrium-docs ingest", () => {
  let root: string;
  let dir: string;
  let groupsFile: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "atrium-ingest-cli-"));
    ({ dir, groupsFile } = await writeFixtureCorpus(root));
  });
  afterAll(async () => rm(root, { recursive: true, force: true }));

  it("ingests into an embedded server on --path, no progress off a terminal, a JSON summary, then stops the server", async () => {
    const data = join(root, "chroma");
    const result = await run([
      dir,
      "--collection",
      "cli-docs",
      "--path",
      data,
      "--groups-file",
      groupsFile,
      "--json",
    ]);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as IngestSummary;
    expect(summary.pages).toEqual({ added: 9, changed: 0, removed: 0, unchanged: 0, total: 9 });
    const chunks = summary.chunks.total;
    expect(result.stderr).toBe("");
    expect(existsSync(join(data, "atrium-chroma.json"))).toBe(false);

    const again = await run(
      [dir, "--collection", "cli-docs", "--path", data, "--groups-file", groupsFile, "-q"],
      true,
    );
    expect(again.code).toBe(0);
    expect(again.stderr).toBe("");
    expect(again.stdout).toMatch(
      new RegExp(
        `^Ingested 9 pages into cli-docs in \\d+\\.\\d s: 0 added, 0 changed, 0 removed, 9 unchanged; ${chunks} chunks \\(0 written, 0 deleted\\), \\d+\\.\\d KiB\\n` +
          "groups: mapping from the groups file \\(1 rule\\), stored with the collection; 2 of 9 pages restricted\\n$",
      ),
    );
  });

  it("a re-ingest without --groups-file keeps the stored mapping; --clear-groups drops it", async () => {
    // One server for the eight commands, as a deployment would have (--path starts one each).
    const chroma = await startTestChroma("atrium-ingest-cli-acl-");
    const server = ["--collection", "acl", "--chroma-url", chroma.server.url];
    const target = [...server, "-q"];
    try {
      const summaryOf = async (argv: string[]) => {
        const result = await run(argv);
        expect(result).toMatchObject({ code: 0, stderr: "" });
        return result.stdout.split("\n").slice(1);
      };
      const catRoadmap = async () => {
        const out = capture();
        const err = capture();
        const io = { stdin: process.stdin, stdout: out.stream, stderr: err.stream };
        const code = await runCli(docsCli(), ["sh", ...server, "-c", "cat /internal/roadmap.mdx"], io);
        return { code, stdout: out.text(), stderr: err.text() };
      };
      const hidden = {
        code: 1,
        stdout: "",
        stderr: "cat: /internal/roadmap.mdx: No such file or directory\n",
      };

      expect(await summaryOf([dir, ...target, "--groups-file", groupsFile])).toEqual([
        "groups: mapping from the groups file (1 rule), stored with the collection; 2 of 9 pages restricted",
        "",
      ]);
      expect(await catRoadmap()).toEqual(hidden);
      expect(await summaryOf([dir, ...target])).toEqual([
        "groups: mapping stored with the collection (1 rule); 2 of 9 pages restricted",
        "",
      ]);
      expect(await catRoadmap()).toEqual(hidden);
      expect(await summaryOf([dir, ...target, "--rebuild"])).toEqual([
        "groups: mapping stored with the collection (1 rule); 2 of 9 pages restricted",
        "",
      ]);
      expect(await catRoadmap()).toEqual(hidden);

      const both = await run([dir, ...target, "--groups-file", groupsFile, "--clear-groups"]);
      expect(both).toEqual({
        code: 2,
        stdout: "",
        stderr:
          "atrium-docs ingest: pass either --groups-file or --clear-groups, not both (see atrium-docs ingest --help)\n",
      });
      expect(await summaryOf([dir, ...target, "--clear-groups"])).toEqual([
        "groups: mapping cleared; only front-matter groups restrict pages; 1 of 9 pages restricted",
        "",
      ]);
      expect(await catRoadmap()).toEqual({
        code: 0,
        stdout: FIXTURE_PAGES["internal/roadmap.mdx"],
        stderr: "",
      });
      expect(await summaryOf([dir, ...target])).toEqual(["groups: no mapping; 1 of 9 pages restricted", ""]);
    } finally {
      await chroma.close();
    }
  });

  it("draws a bar in place on a terminal and clears it at the end", async () => {
    const result = await run([dir, "--collection", "cli-tty", "--path", join(root, "chroma-tty")], true);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("\r\u001b[2K████████████████████████████ 100% writing chunks ");
    expect(result.stderr.endsWith("\r\u001b[2K")).toBe(true);
  });

  it("explains usage errors with exit code 2", async () => {
    expect(await run([dir])).toEqual({
      code: 2,
      stdout: "",
      stderr: "atrium-docs ingest: missing --collection <name> (see atrium-docs ingest --help)\n",
    });
    expect((await run(["--collection", "x"])).stderr).toBe(
      "atrium-docs ingest: missing <dir> (see atrium-docs ingest --help)\n",
    );
    expect(
      (await run([dir, "--collection", "docs", "--chroma-url", "http://x", "--path", root])).stderr,
    ).toContain("pass either --chroma-url or --path, not both");
    expect((await run([dir, "--collection", "docs", "--bogus"])).code).toBe(2);
    const badName = await run([dir, "--collection", "my docs", "--chroma-url", "http://127.0.0.1:9"]);
    expect(badName.code).toBe(2);
    expect(badName.stderr.split("\n")[0]).toMatch(/^atrium-docs ingest: .*my docs/);
    expect(await run(["--help"])).toEqual({ code: 0, stdout: INGEST_HELP, stderr: "" });
  });

  it("fails with exit code 1 and the URL when no server answers", async () => {
    const result = await run([dir, "--collection", "docs", "--chroma-url", "http://127.0.0.1:9"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("atrium-docs ingest: No Chroma server answers at http://127.0.0.1:9");
  });
});
