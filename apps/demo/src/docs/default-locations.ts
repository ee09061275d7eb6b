import { fileURLToPath } from "node:url";

/** The demo app's folder (apps/demo), whatever the working directory. */
export const APP_DIR = fileURLToPath(new URL("../..", import.meta.url));

/** The Mintlify docs corpus the repository ships (fixtures/README.md says where it comes from). */
export const DEFAULT_CORPUS_DIR = fileURLToPath(
  new URL("../../../../fixtures/corpora/mintlify-docs", import.meta.url),
);

/** Chroma's data and the corpus fingerprint: inside the app, git-ignored (apps/demo/.gitignore). */
export const DEFAULT_DATA_DIR = fileURLToPath(new URL("../../.atrium", import.meta.url));

export const DEFAULT_COLLECTION = "mintlify-docs";
