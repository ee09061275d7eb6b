import { ConfigError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { explainMissing, loadChroma } from "./load-chroma.js";

async function importFailure(specifier: string): Promise<unknown> {
  return import(/* @vite-ignore */ specifier).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("loadChroma", () => {
  it("loads @atrium/chroma when it is installed", async () => {
    const chroma = await loadChroma();
    expect(typeof chroma.connectChroma).toBe("function");
    expect(chroma.hashingEmbedding().id).toBe("hashing-v1-384");
  });

  it("names the package to install when the import finds no such package", async () => {
    const error = await importFailure("@atrium/chroma-not-installed-here");
    const explained = explainMissing(error, "@atrium/chroma-not-installed-here", "ChromaDocStore");
    expect(explained).toEqual(
      new ConfigError("ChromaDocStore needs @atrium/chroma (and chromadb): npm install @atrium/chroma"),
    );
    expect((explained as ConfigError).cause).toBe(error);
  });

  it("passes any other import failure through unchanged", () => {
    const failure = new SyntaxError("Unexpected token in @atrium/chroma");
    expect(explainMissing(failure, "@atrium/chroma", "ChromaDocStore")).toBe(failure);
  });
});
