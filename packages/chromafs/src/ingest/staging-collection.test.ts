import { connectChroma } from "@atrium/chroma";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestChroma, type TestChroma, writeFixtureCorpus } from "../../test/fixtures/ingest-fixtures.js";
import { ingestDocs } from "./ingest-docs.js";
import { PENDING_GROUPS_METADATA_KEY } from "./pending-groups.js";
import { REBUILD_OF_METADATA_KEY, stagingCollectionName } from "./staging-collection.js";

describe("a rebuild's staging collection", () => {
  let chroma: TestChroma;
  let dir: string;
  let groupsFile: string;

  beforeAll(async () => {
    chroma = await startTestChroma("atrium-staging-");
    ({ dir, groupsFile } = await writeFixtureCorpus(chroma.root));
  });
  afterAll(async () => chroma?.close());

  const names = async () =>
    (await (await connectChroma(chroma.server.url)).listCollections()).map((c) => c.name).sort();

  it("is named after the target, within Chroma's 512 characters", () => {
    expect(stagingCollectionName("docs")).toBe("docs.atrium-rebuild");
    const long = "d".repeat(500);
    expect(stagingCollectionName(long)).toMatch(/^atrium-rebuild-[0-9a-f]{32}$/);
    expect(stagingCollectionName(long)).not.toBe(stagingCollectionName("e".repeat(500)));
  });

  it("is swapped in whole: afterwards only the target exists, without the rebuild-only metadata", async () => {
    await ingestDocs({ dir, collection: "swap", url: chroma.server.url, groupsFile });
    const summary = await ingestDocs({ dir, collection: "swap", url: chroma.server.url, rebuild: true });
    expect(summary.groups).toEqual({ mapping: "stored", rules: 1, restricted: 2 });
    expect(summary.notices).toEqual([]);
    expect(await names()).toEqual(["swap"]);
    const metadata = (await (await connectChroma(chroma.server.url)).getCollection({ name: "swap" }))
      .metadata;
    expect(Object.keys(metadata ?? {}).sort()).toEqual(["atrium_embedding", "atrium_format", "atrium_tree"]);
  });

  it("a collection that only has the staging name is neither used nor dropped: the rebuild refuses", async () => {
    await ingestDocs({ dir, collection: "taken", url: chroma.server.url });
    const client = await connectChroma(chroma.server.url);
    const foreign = await client.createCollection({ name: "taken.atrium-rebuild", embeddingFunction: null });
    await foreign.add({ ids: ["mine"], documents: ["someone else's"], embeddings: [[1, 0, 0]] });
    await expect(
      ingestDocs({ dir, collection: "taken", url: chroma.server.url, rebuild: true }),
    ).rejects.toThrow(
      "Collection taken.atrium-rebuild exists and was not made by a rebuild of taken; a rebuild writes its new collection under that name, so rename or delete it first",
    );
    // A plain ingest leaves it alone too.
    expect((await ingestDocs({ dir, collection: "taken", url: chroma.server.url })).notices).toEqual([]);
    expect(await (await client.getCollection({ name: "taken.atrium-rebuild" })).count()).toBe(1);
  });

  it("a half-built one recorded the mapping it applies, which a re-run uses when no tree holds it", async () => {
    const client = await connectChroma(chroma.server.url);
    // What a rebuild of a collection that never finished its first ingest leaves when killed.
    await client.createCollection({
      name: "fresh.atrium-rebuild",
      embeddingFunction: null,
      metadata: {
        [REBUILD_OF_METADATA_KEY]: "fresh",
        [PENDING_GROUPS_METADATA_KEY]: JSON.stringify({ "internal/**": ["staff"] }),
      },
    });
    const notices: string[] = [];
    const summary = await ingestDocs({
      dir,
      collection: "fresh",
      url: chroma.server.url,
      onNotice: (notice) => notices.push(notice),
    });
    expect(notices).toEqual([
      "dropped fresh.atrium-rebuild, the half-built collection of an interrupted --rebuild of fresh; there is no fresh yet",
    ]);
    expect(summary.notices).toEqual(notices);
    expect(summary.groups).toEqual({ mapping: "stored", rules: 1, restricted: 2 });
    expect((await names()).filter((name) => name.startsWith("fresh"))).toEqual(["fresh"]);
  });

  it("a corrupt pending mapping is refused with what to pass instead", async () => {
    const client = await connectChroma(chroma.server.url);
    await client.createCollection({
      name: "corrupt",
      embeddingFunction: null,
      metadata: { [PENDING_GROUPS_METADATA_KEY]: "[not json" },
    });
    await expect(ingestDocs({ dir, collection: "corrupt", url: chroma.server.url })).rejects.toThrow(
      /^Collection corrupt has a corrupt atrium_groups_pending metadata value \(.*\), so the groups mapping of its interrupted ingest is unknown; pass --groups-file <file> \(or --clear-groups if no mapping should apply\)$/,
    );
    const summary = await ingestDocs({ dir, collection: "corrupt", url: chroma.server.url, groupsFile });
    expect(summary.groups.mapping).toBe("groups-file");
  });
});
