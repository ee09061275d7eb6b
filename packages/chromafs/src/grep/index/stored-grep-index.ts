import type { Collection, Metadata } from "@atrium/chroma";

/**
 * Where a collection keeps its grep index (src/grep-index): base64 text cut into records of at
 * most GREP_INDEX_PART_CHARS, ids `__grep_index__` (part 0, whose metadata says how many parts
 * there are), `__grep_index__.1`, ... Ingest writes it just before the tree; readers trust it
 * only when it was built for the tree they read (its digest), so a stale one is ignored, never
 * misread.
 */
export const GREP_INDEX_ID = "__grep_index__";

/** Characters per record: well under the server's request limits, few records for big corpora. */
export const GREP_INDEX_PART_CHARS = 4 * 1024 * 1024;

const KIND = "grep-index";

function partId(part: number): string {
  return part === 0 ? GREP_INDEX_ID : `${GREP_INDEX_ID}.${part}`;
}

/** The digest (`treeDigest`) of the index stored whole in the collection, if any. */
export async function storedGrepIndexDigest(collection: Collection): Promise<string | undefined> {
  return (await readParts(collection, false))?.digest;
}

/**
 * Writes the encoded index (built for the tree `digest` names), then deletes parts an earlier,
 * longer index left behind. Part 0 goes last: its digest then stands for a complete index.
 */
export async function writeStoredGrepIndex(
  collection: Collection,
  encoded: string,
  digest: string,
  vector: number[] | undefined,
): Promise<void> {
  const parts: string[] = [];
  for (let start = 0; start < encoded.length || parts.length === 0; start += GREP_INDEX_PART_CHARS) {
    parts.push(encoded.slice(start, start + GREP_INDEX_PART_CHARS));
  }
  const before = await collection.get({ ids: [GREP_INDEX_ID], include: ["metadatas"] });
  const previousParts = Number(before.metadatas[0]?.parts ?? 0);
  // One part per request: a request stays small whatever the corpus.
  for (let part = parts.length - 1; part >= 0; part--) {
    const metadata: Metadata = { kind: KIND, part, parts: parts.length, digest };
    await collection.upsert({
      ids: [partId(part)],
      documents: [parts[part] as string],
      metadatas: [metadata],
      embeddings: vector ? [vector] : undefined,
    });
  }
  const extra: string[] = [];
  for (let part = parts.length; part < previousParts; part++) extra.push(partId(part));
  if (extra.length > 0) await collection.delete({ ids: extra });
}

/**
 * The stored index text, or undefined when the collection has none (ingested before grep
 * indexes existed) or its parts don't fit together (an ingest stopped while writing them).
 */
export async function readStoredGrepIndex(collection: Collection): Promise<string | undefined> {
  return (await readParts(collection, true))?.text;
}

/** Every part, checked to belong to one index (same digest and part count); texts when asked. */
async function readParts(
  collection: Collection,
  withTexts: boolean,
): Promise<{ digest: string; text: string } | undefined> {
  const include: ("documents" | "metadatas")[] = withTexts ? ["documents", "metadatas"] : ["metadatas"];
  const first = await collection.get({ ids: [GREP_INDEX_ID], include });
  const head = first.metadatas[0];
  const digest = head?.digest;
  const parts = Number(head?.parts);
  if (typeof digest !== "string" || !Number.isSafeInteger(parts) || parts < 1) return undefined;
  const ids = Array.from({ length: parts - 1 }, (_, index) => partId(index + 1));
  const rest =
    ids.length > 0 ? await collection.get({ ids, include }) : { ids: [], documents: [], metadatas: [] };
  const texts = new Map<string, string>([[GREP_INDEX_ID, withTexts ? String(first.documents[0] ?? "") : ""]]);
  rest.ids.forEach((id, row) => {
    const metadata = rest.metadatas[row];
    if (metadata?.digest !== digest || Number(metadata?.parts) !== parts) return;
    texts.set(id, withTexts ? String(rest.documents[row] ?? "") : "");
  });
  if (texts.size !== parts) return undefined;
  return { digest, text: [GREP_INDEX_ID, ...ids].map((id) => texts.get(id)).join("") };
}
