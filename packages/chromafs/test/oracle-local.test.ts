import { afterAll } from "vitest";
import { LocalFolderStore } from "../src/store/local-folder-store.js";
import { CORPUS_DIR } from "./oracle/disk-copy.js";
import { GENERATED_COMMANDS } from "./oracle/generated-commands.js";
import { writeGeneratedCorpus } from "./oracle/generated-corpus.js";
import { MINTLIFY_COMMANDS } from "./oracle/mintlify-commands.js";
import { describeOracle } from "./oracle/oracle-suite.js";

describeOracle(
  "LocalFolderStore over the Mintlify corpus",
  async () => ({ store: new LocalFolderStore(CORPUS_DIR), close: async () => {} }),
  MINTLIFY_COMMANDS,
);

const generated = writeGeneratedCorpus();
afterAll(() => generated.remove());

describeOracle(
  "LocalFolderStore over the generated corpus",
  async () => ({ store: new LocalFolderStore(generated.dir), close: async () => {} }),
  GENERATED_COMMANDS,
);
