import { startChromaCorpus } from "./oracle/chroma-corpus.js";
import { CORPUS_DIR } from "./oracle/disk-copy.js";
import { describeOracle } from "./oracle/oracle-suite.js";

describeOracle("ChromaDocStore on a real Chroma server with the ingested Mintlify corpus", async () => {
  const corpus = await startChromaCorpus(CORPUS_DIR);
  return { store: corpus.store, close: () => corpus.close() };
});
