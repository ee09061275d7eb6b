import { DefenseInDepthBox } from "just-bash";
import type { DocStore } from "./doc-store.js";

/**
 * The store as seen from inside a just-bash command. just-bash's defense-in-depth box blocks
 * globals (WeakRef, ...) that Node's fetch needs while a command runs; store calls are host
 * code, not script code, so they run in the box's trusted context. Nothing a command types can
 * reach this: it only wraps our own DocStore methods.
 */
export function trustedStore(store: DocStore): DocStore {
  const findChunks = store.findChunks?.bind(store);
  return {
    description: store.description,
    readTree: () => DefenseInDepthBox.runTrustedAsync(() => store.readTree()),
    readPages: (paths, access) => DefenseInDepthBox.runTrustedAsync(() => store.readPages(paths, access)),
    findPages: (filter, access, within) =>
      DefenseInDepthBox.runTrustedAsync(() => store.findPages(filter, access, within)),
    ...(findChunks && {
      findChunks: (filter, access, within) =>
        DefenseInDepthBox.runTrustedAsync(() => findChunks(filter, access, within)),
    }),
    search: (query, access, limit) =>
      DefenseInDepthBox.runTrustedAsync(() => store.search(query, access, limit)),
  };
}
