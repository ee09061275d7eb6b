import { afterAll, beforeAll } from "vitest";
import { type ChromaCorpora, startChromaCorpora } from "./oracle/chroma-corpus.js";
import { CORPUS_DIR } from "./oracle/disk-copy.js";
import { GENERATED_COMMANDS } from "./oracle/generated-commands.js";
import { writeGeneratedCorpus } from "./oracle/generated-corpus.js";
import { MINTLIFY_COMMANDS } from "./oracle/mintlify-commands.js";
import { describeOracle } from "./oracle/oracle-suite.js";

// One Chroma server and one ingest per corpus for the whole file.
const generated = writeGeneratedCorpus();
let corpora: ChromaCorpora;
beforeAll(async () => {
  corpora = await startChromaCorpora({ "mintlify-docs": CORPUS_DIR, generated: generated.dir });
}, 300_000);
afterAll(async () => {
  try {
    await corpora?.close();
  } finally {
    generated.remove();
  }
});

describeOracle(
  "ChromaDocStore on a real Chroma server with the ingested Mintlify corpus",
  async () => ({ store: corpora.stores["mintlify-docs"]!, close: async () => {} }),
  MINTLIFY_COMMANDS,
);
describeOracle(
  "ChromaDocStore on the same server with the ingested generated corpus",
  async () => ({ store: corpora.stores.generated!, close: async () => {} }),
  GENERATED_COMMANDS,
);
