import { ConfigError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import type { DocStore } from "../doc-store/doc-store.js";
import { SessionWorkerPool } from "../session-pool/session-worker-pool.js";
import { LocalFolderStore } from "./local-folder-store.js";
import { storeRecipeOf } from "./store-recipe.js";

describe("storeRecipeOf", () => {
  it("describes a folder store as its folder and groups file", () => {
    expect(storeRecipeOf(new LocalFolderStore("/docs", "/docs/groups.json"))).toEqual({
      recipe: { kind: "folder", root: "/docs", groupsFile: "/docs/groups.json" },
    });
  });

  it("has no recipe for a store only this thread can use, and the pool says what to do", async () => {
    const custom: DocStore = {
      description: "a custom store",
      readTree: async () => ({ version: 2, files: {} }),
      readPages: async () => new Map(),
      findPages: async () => [],
      search: async () => [],
    };
    expect(storeRecipeOf(custom)).toBeUndefined();
    const refused = SessionWorkerPool.start({ store: custom });
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow(
      "SessionWorkerPool: a custom store can't be opened again in a worker thread; pass a ChromaDocStore opened on a URL or a LocalFolderStore, or run sessions in process (openDocsSession)",
    );
  });
});
