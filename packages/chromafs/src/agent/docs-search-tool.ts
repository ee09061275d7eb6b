import { schemaToolInput } from "@atrium/kit";
import type { Tool } from "@atrium/spec";
import { z } from "zod";
import type { Access, DocStore } from "../doc-store/doc-store.js";
import { DEFAULT_CHROMAFS_LIMITS } from "../limits.js";
import { formatSearchHits } from "../search/search-command.js";
import { SEARCH_DEFAULT_HITS } from "../tuning.js";

const Input = z.strictObject({
  query: z.string().min(1).max(2_000).describe("What to look for, in words"),
  limit: z
    .number()
    .int()
    .min(1)
    .max(DEFAULT_CHROMAFS_LIMITS.maxSearchHits)
    .optional()
    .describe("Most hits to return"),
});

/** Semantic/hybrid search over the pages `access` may see: one `path: snippet` line per hit. */
export function docsSearchTool(store: DocStore, access: Access): Tool<z.infer<typeof Input>, string> {
  return {
    name: "search",
    description:
      "Rank documentation pages by meaning and keywords. Returns one `path: snippet` line per hit; " +
      "read a hit with the bash tool (cat <path>).",
    ...schemaToolInput(Input, "search"),
    annotations: { readOnlyHint: true, openWorldHint: false },
    async execute({ query, limit }) {
      const hits = await store.search(query, access, limit ?? SEARCH_DEFAULT_HITS);
      return formatSearchHits(hits, query) || "no matches\n";
    },
  };
}
