import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IngestSummary } from "../ingest/ingest-docs.js";
import { writeFixtureCorpus } from "../ingest/test-fixtures.js";
import { INGEST_USAGE, runIngestCommand } from "./ingest-command.js";

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
  const code = await runIngestCommand(argv, { stdout: stdout.stream, stderr: stderr.stream });
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

  it("ingests into an embedded server on --path, reports progress lines and a JSON summary, then stops the server", async () => {
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
    expect(result.stderr).toBe(
      `reading pages: 9/9\nwriting chunks: 0/${chunks}\nwriting chunks: ${chunks}/${chunks}\n`,
    );
    expect(existsSync(join(data, "atrium-chroma.json"))).toBe(false);

    const again = await run(
      [dir, "--collection", "cli-docs", "--path", data, "--groups-file", groupsFile, "-q"],
      true,
    );
    expect(again.code).toBe(0);
    expect(again.stderr).toBe("");
    expect(again.stdout).toMatch(
      new RegExp(
        `^Ingested 9 pages into cli-docs in \\d+\\.\\d s: 0 added, 0 changed, 0 removed, 9 unchanged; ${chunks} chunks \\(0 written, 0 deleted\\), \\d+\\.\\d KiB\\n$`,
      ),
    );
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
      stderr: `atrium-docs ingest: missing --collection <name>\n\n${INGEST_USAGE}`,
    });
    expect((await run(["--collection", "x"])).stderr).toContain("atrium-docs ingest: missing <dir>\n");
    expect(
      (await run([dir, "--collection", "docs", "--chroma-url", "http://x", "--path", root])).stderr,
    ).toContain("pass either --chroma-url or --path, not both");
    expect((await run([dir, "--collection", "docs", "--bogus"])).code).toBe(2);
    expect(await run(["--help"])).toEqual({ code: 0, stdout: INGEST_USAGE, stderr: "" });
  });

  it("fails with exit code 1 and the URL when no server answers", async () => {
    const result = await run([dir, "--collection", "docs", "--chroma-url", "http://127.0.0.1:9"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("atrium-docs ingest: No Chroma server answers at http://127.0.0.1:9");
  });
});
