import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ChromaServer,
  type Collection,
  connectChroma,
  hashingEmbedding,
  startChromaServer,
} from "@atrium/chroma";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docsBashTool } from "../src/agent/docs-bash-tool.js";
import { TreeCache } from "../src/fs/tree-cache.js";
import { ingestDocs } from "../src/ingest/ingest-docs.js";
import { DEFAULT_CHROMAFS_LIMITS } from "../src/limits.js";
import { openDocsSession } from "../src/session/docs-session.js";
import { ChromaDocStore } from "../src/store/chroma/chroma-doc-store.js";
import { PATH_TREE_ID } from "../src/tree/path-tree.js";
import { type SmallDocsDir, writeSmallDocs } from "./fixtures/small-docs.js";

const TOOL_CONTEXT = { signal: new AbortController().signal };

describe("bad input at the session level (real Chroma server)", () => {
  let dir: SmallDocsDir;
  let dataDir: string;
  let server: ChromaServer;
  let collection: Collection;

  beforeAll(async () => {
    dir = writeSmallDocs();
    dataDir = mkdtempSync(join(tmpdir(), "chromafs-bad-"));
    server = await startChromaServer({ path: dataDir });
    await ingestDocs({ dir: dir.root, collection: "small", url: server.url });
    const client = await connectChroma(server.url);
    collection = await client.getCollection({ name: "small" });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    dir?.remove();
  });

  it("serves the collection before anything breaks", async () => {
    const store = await ChromaDocStore.open({ url: server.url, collection: "small" });
    const session = await openDocsSession({ store, groups: ["staff"], treeCache: new TreeCache(store) });
    expect(await session.exec("grep -rn Falcon / ; cat /zh/指南.mdx | tail -1")).toEqual({
      stdout: "/internal/roadmap.md:5:Project Falcon ships in Q3.\nAPI 密钥在设置中。\n",
      stderr: "",
      exitCode: 0,
    });
  });

  it("serves a huge page whole to the session, bounded to agents, and refuses an over-limit page", async () => {
    const line = `${"x".repeat(99)}\n`;
    const huge = writeSmallDocs({ "big/huge.md": line.repeat(30_000) });
    try {
      await ingestDocs({ dir: huge.root, collection: "huge", url: server.url });
      const store = await ChromaDocStore.open({ url: server.url, collection: "huge" });
      const session = await openDocsSession({ store, treeCache: new TreeCache(store) });
      expect(await session.exec("stat -c %s /big/huge.md; ls -l /big | wc -l")).toEqual({
        stdout: "3000000\n2\n",
        stderr: "",
        exitCode: 0,
      });
      expect(session.pageFetches).toBe(0);
      expect((await session.exec("cat /big/huge.md | wc -c; grep -c x /big/huge.md")).stdout).toBe(
        "3000000\n30000\n",
      );
      const bash = docsBashTool(session);
      const result = (await bash.execute({ command: "cat /big/huge.md" }, TOOL_CONTEXT)) as {
        stdout: string;
      };
      expect(result.stdout).toBe(
        `${line.repeat(30_000).slice(0, DEFAULT_CHROMAFS_LIMITS.maxToolOutputBytes)}\n[output truncated: 3000000 bytes, showing the first ${DEFAULT_CHROMAFS_LIMITS.maxToolOutputBytes}; narrow the command (head, grep -m, wc)]\n`,
      );

      // A page over the ingest limit is refused before anything is written: the collection
      // keeps serving what it had.
      const chunksBefore = (await (await connectChroma(server.url)).getCollection({ name: "huge" })).count();
      const over = join(huge.root, "big", "over.md");
      writeFileSync(over, "y".repeat(DEFAULT_CHROMAFS_LIMITS.maxPageBytes + 1));
      await expect(ingestDocs({ dir: huge.root, collection: "huge", url: server.url })).rejects.toThrow(
        `${over} is ${DEFAULT_CHROMAFS_LIMITS.maxPageBytes + 1} bytes, over the ${DEFAULT_CHROMAFS_LIMITS.maxPageBytes}-byte page limit; split it or leave it out`,
      );
      const after = await (await connectChroma(server.url)).getCollection({ name: "huge" });
      expect(await after.count()).toBe(await chunksBefore);
      const again = await openDocsSession({ store, treeCache: new TreeCache(store) });
      expect((await again.exec("ls /big")).stdout).toBe("huge.md\n");
    } finally {
      huge.remove();
    }
  });

  it("a corrupt tree fails the session with the store's error, and a repaired one works again", async () => {
    const store = await ChromaDocStore.open({ url: server.url, collection: "small" });
    const cache = new TreeCache(store);
    const saved = await collection.get({
      ids: [PATH_TREE_ID],
      include: ["documents", "embeddings", "metadatas"],
    });
    const [vector] = await hashingEmbedding().embed(["path tree"]);
    await collection.update({
      ids: [PATH_TREE_ID],
      documents: ["not a gzipped tree"],
      embeddings: [vector as number[]],
    });
    await expect(openDocsSession({ store, treeCache: cache })).rejects.toThrow(
      "The path tree of collection small is corrupt (",
    );
    await collection.update({
      ids: [PATH_TREE_ID],
      documents: [saved.documents[0] as string],
      embeddings: [saved.embeddings[0] as number[]],
    });
    const session = await openDocsSession({ store, treeCache: cache });
    expect((await session.exec("ls /")).stdout).toBe("docs.json\nguides\nindex.mdx\ninternal\ntmp\nzh\n");
  });

  it("a missing tree is an error saying to ingest, never an empty filesystem", async () => {
    const store = await ChromaDocStore.open({ url: server.url, collection: "small" });
    await collection.delete({ ids: [PATH_TREE_ID] });
    await expect(openDocsSession({ store, treeCache: new TreeCache(store) })).rejects.toThrow(
      `Collection small has no path tree (${PATH_TREE_ID}); ingest docs into it first: atrium-docs ingest <dir> --collection small`,
    );
  });

  it("an unreachable server is named by URL", async () => {
    await expect(ChromaDocStore.open({ url: "http://127.0.0.1:9", collection: "small" })).rejects.toThrow(
      "No Chroma server answers at http://127.0.0.1:9",
    );
  });
});
