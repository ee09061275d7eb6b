import type { Access, DocStore } from "../../doc-store/doc-store.js";
import type { DocsFs } from "../../fs/docs-fs.js";
import type { PageSource } from "../../fs/page-source.js";
import type { TreeIndex } from "../../fs/tree-index.js";

/** What the accelerated grep needs of a session: the store to narrow with, the reader's access, the path tree, its pages and its filesystem. */
export interface GrepAcceleration {
  store: DocStore;
  access: Access;
  index: TreeIndex;
  pages: PageSource;
  fs: DocsFs;
}
