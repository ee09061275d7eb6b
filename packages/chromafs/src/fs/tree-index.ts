import type { PathTree, PathTreeFile } from "../tree/path-tree.js";

export interface TreeDirent {
  name: string;
  isDirectory: boolean;
}

export interface TreeDirectory {
  /** Children sorted by name (code point order), the order `readdir` returns. */
  children: TreeDirent[];
  /** Newest mtime of any page below, so `ls -l` and `find -newer` see something sensible. */
  mtime: number;
}

/**
 * The lookup structure a filesystem answers `stat`/`readdir`/`exists` from without touching
 * content: files by path, and every directory implied by those paths with its sorted children.
 * Built once per (tree, groups) and shared read-only by every session with those groups.
 */
export class TreeIndex {
  readonly files: ReadonlyMap<string, PathTreeFile>;
  readonly directories: ReadonlyMap<string, TreeDirectory>;
  /** Every file path in traversal order (directories first by name, depth-first). */
  readonly filePaths: readonly string[];

  constructor(tree: PathTree) {
    const files = new Map<string, PathTreeFile>();
    const childSets = new Map<string, Map<string, boolean>>([["/", new Map()]]);
    const mtimes = new Map<string, number>([["/", 0]]);
    for (const [path, file] of Object.entries(tree.files)) {
      files.set(path, file);
      let child = path;
      let isDirectory = false;
      while (child !== "/") {
        const cut = child.lastIndexOf("/");
        const parent = cut === 0 ? "/" : child.slice(0, cut);
        let children = childSets.get(parent);
        if (!children) {
          children = new Map();
          childSets.set(parent, children);
        }
        children.set(child.slice(cut + 1), isDirectory);
        mtimes.set(parent, Math.max(mtimes.get(parent) ?? 0, file.mtime));
        child = parent;
        isDirectory = true;
      }
    }
    const directories = new Map<string, TreeDirectory>();
    for (const [path, children] of childSets) {
      const sorted = [...children]
        .map(([name, isDirectory]) => ({ name, isDirectory }))
        .sort((a, b) => compareNames(a.name, b.name));
      directories.set(path, { children: sorted, mtime: mtimes.get(path) ?? 0 });
    }
    this.files = files;
    this.directories = directories;
    const order: string[] = [];
    const walk = (dir: string) => {
      for (const entry of directories.get(dir)?.children ?? []) {
        const path = dir === "/" ? `/${entry.name}` : `${dir}/${entry.name}`;
        if (entry.isDirectory) walk(path);
        else order.push(path);
      }
    };
    walk("/");
    this.filePaths = order;
  }

  /** Visible files at or below `path` (a file or a directory), in traversal order. */
  filesUnder(path: string): string[] {
    if (this.files.has(path)) return [path];
    if (!this.directories.has(path)) return [];
    if (path === "/") return [...this.filePaths];
    const prefix = `${path}/`;
    return this.filePaths.filter((file) => file.startsWith(prefix));
  }
}

/** Code-unit order of UTF-16 strings differs from byte order for astral characters; compare bytes. */
function compareNames(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
