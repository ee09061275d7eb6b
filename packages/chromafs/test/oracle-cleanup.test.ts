import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalFolderStore } from "../src/index.js";
import { startChromaCorpus } from "./oracle/chroma-corpus.js";
import { writeDiskCopy } from "./oracle/disk-copy.js";

// The suites' set-up helpers create temporary folders; when set-up fails half-way they must
// remove what they made. TMPDIR points at a folder of this test's own, so nothing else writes
// there and whatever is left in it was left by the helper.
describe("test set-up that fails leaves no temporary folder behind", () => {
  const savedTmp = process.env.TMPDIR;
  let scratch: string;
  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), "chromafs-cleanup-"));
    process.env.TMPDIR = scratch;
  });
  afterEach(() => {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    rmSync(scratch, { recursive: true, force: true });
  });

  it("startChromaCorpus over a missing docs folder", async () => {
    await expect(startChromaCorpus(join(scratch, "no-such-docs"), "cleanup")).rejects.toThrow("no-such-docs");
    expect(readdirSync(scratch)).toEqual([]);
  }, 60_000);

  it("writeDiskCopy from a store that fails while pages are read", async () => {
    const store = new LocalFolderStore(join(scratch, "no-such-docs"));
    await expect(writeDiskCopy(store)).rejects.toThrow();
    expect(readdirSync(scratch)).toEqual([]);
  });
});
