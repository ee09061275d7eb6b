// One page limit for the whole path: a page at the limit (maxPageBytes and maxPageLines both
// reached) is accepted by ingest, printed whole by cat and searched by grep and rg in a session,
// accelerated or not; one byte or one line more is refused by ingest, naming the file.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChromaServer, startChromaServer } from "@atrium/chroma";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TreeCache } from "../src/fs/tree-cache.js";
import { ingestDocs } from "../src/ingest/ingest-docs.js";
import { DEFAULT_CHROMAFS_LIMITS } from "../src/limits.js";
import { openDocsSession } from "../src/session/docs-session.js";
import { ChromaDocStore } from "../src/store/chroma/chroma-doc-store.js";
import { LocalFolderStore } from "../src/store/local-folder-store.js";

const { maxPageBytes, maxPageLines } = DEFAULT_CHROMAFS_LIMITS;
const NEEDLE = "needle-on-the-last-line";

/** Exactly `bytes` UTF-8 bytes in exactly `lines` newline-ended lines, the last one holding NEEDLE. */
function pageOf(bytes: number, lines: number): string {
  const width = Math.floor(bytes / lines);
  const wider = bytes - width * lines;
  const lengthOf = (index: number) => (index < wider ? width + 1 : width) - 1;
  const body = Array.from({ length: lines - 1 }, (_, index) => `${"y".repeat(lengthOf(index))}\n`);
  return `${body.join("")}${NEEDLE}${"z".repeat(lengthOf(lines - 1) - NEEDLE.length)}\n`;
}

describe("the page limit holds from ingest to cat and grep", () => {
  let root = "";
  let server: ChromaServer | undefined;
  let page = "";

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "chromafs-page-limit-"));
    mkdirSync(join(root, "docs", "big"), { recursive: true });
    page = pageOf(maxPageBytes, maxPageLines);
    writeFileSync(join(root, "docs", "big", "page.md"), page);
    writeFileSync(join(root, "docs", "index.md"), "# Home\n");
    server = await startChromaServer({ path: join(root, "chroma") });
  }, 60_000);
  afterAll(async () => {
    try {
      await server?.stop();
    } finally {
      if (root) rmSync(root, { recursive: true, force: true });
    }
  });

  it("builds a page exactly at both limits", () => {
    expect(Buffer.byteLength(page)).toBe(maxPageBytes);
    expect(page.split("\n").length - 1).toBe(maxPageLines);
  });

  it("a page at the limit is ingested, printed whole and found by grep -n, grep -rl and rg, with and without acceleration", async () => {
    const url = (server as ChromaServer).url;
    await ingestDocs({ dir: join(root, "docs"), collection: "big", url });
    const chroma = await ChromaDocStore.open({ url, collection: "big" });
    const local = new LocalFolderStore(join(root, "docs"));
    const lastLine = page.slice(page.lastIndexOf("\n", page.length - 2) + 1);
    const found = { stdout: `${maxPageLines}:${lastLine}`, stderr: "", exitCode: 0 };
    // Narrowed by the store (grep and rg then read sparse pages up to the matching chunk).
    const session = await openDocsSession({ store: chroma, treeCache: new TreeCache(chroma) });
    expect(await session.exec("cat /big/page.md")).toEqual({ stdout: page, stderr: "", exitCode: 0 });
    expect(await session.exec(`grep -n ${NEEDLE} /big/page.md`)).toEqual(found);
    expect(await session.exec(`rg -n ${NEEDLE} /big/page.md`)).toEqual(found);
    expect(await session.exec(`grep -rl ${NEEDLE} /; grep -c y /big/page.md`)).toEqual({
      stdout: `/big/page.md\n${maxPageLines - 1}\n`,
      stderr: "",
      exitCode: 0,
    });
    // just-bash's own grep and rg over the whole page.
    const plain = await openDocsSession({
      store: chroma,
      accelerateGrep: false,
      treeCache: new TreeCache(chroma),
    });
    expect(await plain.exec(`grep -n ${NEEDLE} /big/page.md`)).toEqual(found);
    expect(await plain.exec(`grep -rl ${NEEDLE} /`)).toEqual({
      stdout: "/big/page.md\n",
      stderr: "",
      exitCode: 0,
    });
    const folder = await openDocsSession({ store: local, accelerateGrep: false });
    expect(await folder.exec(`rg -n ${NEEDLE} /big/page.md`)).toEqual(found);
  }, 120_000);

  it("refuses a page one byte or one line over the limit, naming it", async () => {
    const url = (server as ChromaServer).url;
    const over = join(root, "docs", "big", "over.md");
    writeFileSync(over, pageOf(maxPageBytes + 1, maxPageLines));
    await expect(ingestDocs({ dir: join(root, "docs"), collection: "over", url })).rejects.toThrow(
      `${over} is ${maxPageBytes + 1} bytes, over the ${maxPageBytes}-byte page limit; split it or leave it out`,
    );
    writeFileSync(over, `${"\n".repeat(maxPageLines)}x`);
    await expect(ingestDocs({ dir: join(root, "docs"), collection: "over", url })).rejects.toThrow(
      `${over} has ${maxPageLines + 1} lines, over the ${maxPageLines}-line page limit; split it or leave it out`,
    );
    rmSync(over);
  });
});
