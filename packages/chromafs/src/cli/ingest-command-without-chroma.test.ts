import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commandHelp, runCli } from "@atrium/kit/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Chroma, explainMissing } from "../collection-schema/load-chroma.js";
import { docsCli } from "./docs-cli.js";
import { ingestCommand } from "./ingest-command.js";

// The workspace always has @atrium/chroma, so its absence is what Node's loader reports for a
// package that is not installed, turned into the CLI's error by the same code loadChroma uses.
// (tests/install runs the real thing: chromafs installed alone from its tarball.)
const loads: string[] = [];
async function chromaNotInstalled(who: string): Promise<Chroma> {
  loads.push(who);
  const error = Object.assign(
    new Error(
      "Cannot find package '@atrium/chroma' imported from /app/node_modules/@atrium/chromafs/dist/cli/main.js",
    ),
    { code: "ERR_MODULE_NOT_FOUND" },
  );
  throw explainMissing(error, "@atrium/chroma", who);
}

async function run(argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(docsCli([ingestCommand(chromaNotInstalled)]), ["ingest", ...argv], {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
  });
  return { code, stdout, stderr };
}

describe("atrium-docs ingest without @atrium/chroma", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "atrium-ingest-no-chroma-"));
    await writeFile(join(root, "index.md"), "# Docs\n");
  });
  afterAll(async () => rm(root, { recursive: true, force: true }));

  it("prints the usage for --help without loading it", async () => {
    loads.length = 0;
    expect(await run(["--help"])).toEqual({
      code: 0,
      stdout: commandHelp(["atrium-docs", "ingest"], ingestCommand(chromaNotInstalled)),
      stderr: "",
    });
    expect(loads).toEqual([]);
  });

  it("reports a usage error first (exit 2), without loading it", async () => {
    loads.length = 0;
    expect(await run([root])).toEqual({
      code: 2,
      stdout: "",
      stderr: "atrium-docs ingest: missing --collection <name> (see atrium-docs ingest --help)\n",
    });
    expect(loads).toEqual([]);
  });

  it("names the package to install when an ingest would run (exit 1)", async () => {
    loads.length = 0;
    expect(await run([root, "--collection", "docs", "--path", join(root, "chroma")])).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "atrium-docs ingest: writing a Chroma collection needs @atrium/chroma (and chromadb): npm install @atrium/chroma\n",
    });
    expect(loads).toEqual(["writing a Chroma collection"]);
  });
});
