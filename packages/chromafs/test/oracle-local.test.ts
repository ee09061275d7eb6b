import { LocalFolderStore } from "../src/store/local-folder-store.js";
import { CORPUS_DIR } from "./oracle/disk-copy.js";
import { describeOracle } from "./oracle/oracle-suite.js";

describeOracle("LocalFolderStore over the Mintlify corpus", async () => ({
  store: new LocalFolderStore(CORPUS_DIR),
  close: async () => {},
}));
