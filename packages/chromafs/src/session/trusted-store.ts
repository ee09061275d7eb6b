import { DefenseInDepthBox } from "just-bash";
import type { DocStore } from "../doc-store/doc-store.js";
import { noteStoreFailure } from "../doc-store/store-failures.js";

/**
 * The store as seen from inside a just-bash command. just-bash's defense-in-depth box blocks
 * globals (WeakRef, ...) that Node's fetch needs while a command runs; store calls are host
 * code, not script code, so they run in the box's trusted context. Nothing a command types can
 * reach this: it only wraps our own DocStore methods. A store that cannot be reached is noted
 * for the command line that asked (see `watchStoreFailures`), whatever the command then does.
 */
export function trustedStore(store: DocStore): DocStore {
  const findChunks = store.findChunks?.bind(store);
  const trusted = <T>(call: () => Promise<T>): Promise<T> =>
    DefenseInDepthBox.runTrustedAsync(call).catch((error: unknown) => {
      noteStoreFailure(error);
      throw error;
    });
  return {
    get description() {
      return store.description;
    },
    readTree: () => trusted(() => store.readTree()),
    readPages: (paths, access) => trusted(() => store.readPages(paths, access)),
    findPages: (filter, access, within) => trusted(() => store.findPages(filter, access, within)),
    ...(findChunks && {
      findChunks: (filter, access, within) => trusted(() => findChunks(filter, access, within)),
    }),
    search: (query, access, limit, options) => trusted(() => store.search(query, access, limit, options)),
  };
}
