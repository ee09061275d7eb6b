import { posix } from "node:path";
import {
  type ByteString,
  type CpOptions,
  type FileContent,
  type FsStat,
  type IFileSystem,
  InMemoryFs,
  type MkdirOptions,
  type RmOptions,
} from "just-bash";
import { encodeText } from "../byte-strings/just-bash-bytes.js";
import { noteStoreFailure } from "../doc-store/store-failures.js";
import type { PageSource } from "./page-source.js";
import { pageView } from "./page-views.js";
import { PosixError } from "./posix-error.js";
import type { TreeDirent, TreeIndex } from "./tree-index.js";

type DirentEntry = Awaited<ReturnType<NonNullable<IFileSystem["readdirWithFileTypes"]>>>[number];
type ReadFileOptions = Parameters<IFileSystem["readFile"]>[1];
type WriteFileOptions = Parameters<IFileSystem["writeFile"]>[2];

const FILE_MODE = 0o100644;
/** `/dev/null`, which scripts redirect to (`2>/dev/null`): reads as empty, swallows writes. */
const NULL_DEVICE = "/dev/null";
const NULL_DEVICE_MODE = 0o20666;
const DIRECTORY_MODE = 0o40755;
/** What `stat` reports as a directory's size, as ext4 does for small directories. */
const DIRECTORY_SIZE = 4096;

export interface DocsFsOptions {
  index: TreeIndex;
  pages: PageSource;
  /** Mount point of the per-session writable scratch area (default `/tmp`); null for none. */
  scratchMount?: string | null;
  /**
   * Awaited before each read, stat and directory listing. A command over cached pages never
   * otherwise leaves its microtasks, so a pool worker uses this to let its event loop run now
   * and then (a cancellation arrives, another session's command takes a turn).
   */
  yieldPoint?: () => Promise<void>;
}

/**
 * just-bash's `IFileSystem` over a pruned path tree and a page source. Metadata calls are
 * answered from the tree alone; content is fetched on first read. Everything is read-only
 * (EROFS) except the scratch mount, an in-memory filesystem private to the session that never
 * reaches the store. A path outside the pruned tree is ENOENT, exactly like one that never existed.
 */
export class DocsFs implements IFileSystem {
  private readonly index: TreeIndex;
  private readonly pages: PageSource;
  private readonly scratchMount: string | null;
  private readonly scratch: InMemoryFs | null;
  private rootChildren: TreeDirent[] | undefined;
  private readonly yieldPoint: (() => Promise<void>) | undefined;

  constructor(options: DocsFsOptions) {
    this.index = options.index;
    this.yieldPoint = options.yieldPoint;
    this.pages = options.pages;
    this.scratchMount = options.scratchMount === undefined ? "/tmp" : options.scratchMount;
    if (this.scratchMount) {
      this.scratch = new InMemoryFs();
      this.scratch.mkdirSync(this.scratchMount, { recursive: true });
    } else {
      this.scratch = null;
    }
  }

  // ---- reads -------------------------------------------------------------------------------

  async readFile(path: string, options?: ReadFileOptions): Promise<string> {
    if (this.yieldPoint) await this.yieldPoint();
    const target = this.locate(path, "open");
    if (target.scratch) return target.scratch.readFile(target.path, options);
    const text = await this.readPage(target.path, path);
    const encoding = typeof options === "string" ? options : options?.encoding;
    if (!encoding || encoding === "utf8" || encoding === "utf-8") return text;
    return Buffer.from(text, "utf8").toString(encoding);
  }

  async readFileBuffer(path: string): Promise<Uint8Array> {
    if (this.yieldPoint) await this.yieldPoint();
    const target = this.locate(path, "open");
    if (target.scratch) return target.scratch.readFileBuffer(target.path);
    return new Uint8Array(Buffer.from(await this.readPage(target.path, path), "utf8"));
  }

  async readFileBytes(path: string): Promise<ByteString> {
    if (this.yieldPoint) await this.yieldPoint();
    const target = this.locate(path, "open");
    if (target.scratch) return target.scratch.readFileBytes(target.path);
    return encodeText(await this.readPage(target.path, path));
  }

  async exists(path: string): Promise<boolean> {
    try {
      await this.stat(path);
      return true;
    } catch {
      return false;
    }
  }

  async stat(path: string): Promise<FsStat> {
    if (this.yieldPoint) await this.yieldPoint();
    const target = this.locate(path, "stat");
    if (target.scratch) return target.scratch.stat(target.path);
    if (this.isNullDevice(target.path)) {
      return {
        isFile: false,
        isDirectory: false,
        isSymbolicLink: false,
        mode: NULL_DEVICE_MODE,
        size: 0,
        mtime: new Date(0),
      };
    }
    const file = this.index.files.get(target.path);
    if (file) {
      if (target.trailingSlash) throw new PosixError("ENOTDIR", "stat", path);
      return {
        isFile: true,
        isDirectory: false,
        isSymbolicLink: false,
        mode: FILE_MODE,
        size: file.size,
        mtime: new Date(file.mtime),
      };
    }
    const directory = this.index.directories.get(target.path);
    if (directory) {
      return {
        isFile: false,
        isDirectory: true,
        isSymbolicLink: false,
        mode: DIRECTORY_MODE,
        size: DIRECTORY_SIZE,
        mtime: new Date(directory.mtime),
      };
    }
    throw new PosixError("ENOENT", "stat", path);
  }

  lstat(path: string): Promise<FsStat> {
    return this.stat(path);
  }

  async readdir(path: string): Promise<string[]> {
    return (await this.readdirWithFileTypes(path)).map((entry) => entry.name);
  }

  async readdirWithFileTypes(path: string): Promise<DirentEntry[]> {
    if (this.yieldPoint) await this.yieldPoint();
    const target = this.locate(path, "scandir");
    if (target.scratch) return target.scratch.readdirWithFileTypes(target.path);
    const children = this.children(target.path);
    if (!children) {
      if (this.index.files.has(target.path)) throw new PosixError("ENOTDIR", "scandir", path);
      throw new PosixError("ENOENT", "scandir", path);
    }
    return children.map((entry) => ({
      name: entry.name,
      isFile: !entry.isDirectory,
      isDirectory: entry.isDirectory,
      isSymbolicLink: false,
    }));
  }

  /**
   * Normalised like any just-bash filesystem, except that a trailing slash survives: commands
   * hand the result back to `stat`/`readFile`, and `cat /page.mdx/` must fail with ENOTDIR as
   * in bash, not read the page.
   */
  resolvePath(base: string, path: string): string {
    const resolved = posix.resolve(base || "/", path);
    return resolved !== "/" && /\/\.?$/.test(path) ? `${resolved}/` : resolved;
  }

  getAllPaths(): string[] {
    const paths = [...this.index.directories.keys(), ...this.index.files.keys()];
    if (this.scratch) paths.push(...this.scratch.getAllPaths().filter((p) => p !== "/"));
    return paths;
  }

  async readlink(path: string): Promise<string> {
    const target = this.locate(path, "readlink");
    if (target.scratch) return target.scratch.readlink(target.path);
    await this.stat(path);
    throw new PosixError("EINVAL", "readlink", path);
  }

  async realpath(path: string): Promise<string> {
    const target = this.locate(path, "realpath");
    if (target.scratch) return target.scratch.realpath(target.path);
    await this.stat(path);
    return target.path;
  }

  // ---- writes: EROFS outside the scratch mount ----------------------------------------------

  async writeFile(path: string, content: FileContent, options?: WriteFileOptions) {
    if (this.isNullDevice(this.normal(path))) return;
    return this.writable(path, "write").writeFile(this.normal(path), content, options);
  }

  async appendFile(path: string, content: FileContent, options?: WriteFileOptions) {
    if (this.isNullDevice(this.normal(path))) return;
    return this.writable(path, "append").appendFile(this.normal(path), content, options);
  }

  async mkdir(path: string, options?: MkdirOptions) {
    return this.writable(path, "mkdir").mkdir(this.normal(path), options);
  }

  async rm(path: string, options?: RmOptions) {
    return this.writable(path, "rm").rm(this.normal(path), options);
  }

  async chmod(path: string, mode: number) {
    return this.writable(path, "chmod").chmod(this.normal(path), mode);
  }

  async utimes(path: string, atime: Date, mtime: Date) {
    return this.writable(path, "utimes").utimes(this.normal(path), atime, mtime);
  }

  async symlink(target: string, linkPath: string) {
    return this.writable(linkPath, "symlink").symlink(target, this.normal(linkPath));
  }

  async link(existingPath: string, newPath: string) {
    const scratch = this.writable(newPath, "link");
    if (!this.isScratch(this.normal(existingPath))) throw new PosixError("EROFS", "link", newPath);
    return scratch.link(this.normal(existingPath), this.normal(newPath));
  }

  async mv(src: string, dest: string) {
    const scratch = this.writable(dest, "mv");
    if (!this.isScratch(this.normal(src))) throw new PosixError("EROFS", "mv", src);
    return scratch.mv(this.normal(src), this.normal(dest));
  }

  /** Copies within the scratch area, or from the docs into it (the only way docs get "edited"). */
  async cp(src: string, dest: string, options?: CpOptions) {
    const scratch = this.writable(dest, "cp");
    const from = this.normal(src);
    const to = this.normal(dest);
    if (this.isScratch(from)) return scratch.cp(from, to, options);
    const info = await this.stat(from);
    if (info.isFile) return scratch.writeFile(to, await this.readFileBuffer(from));
    if (!options?.recursive) throw new PosixError("EISDIR", "cp", src);
    await scratch.mkdir(to, { recursive: true });
    for (const entry of this.children(from) ?? []) {
      await this.cp(posix.join(from, entry.name), posix.join(to, entry.name), options);
    }
  }

  /** True for the scratch mount and paths inside it. */
  isScratchPath(normalPath: string): boolean {
    return this.isScratch(normalPath);
  }

  isScratchMount(normalPath: string): boolean {
    return normalPath === this.scratchMount;
  }

  /** True for paths a recursive walk from which reaches the scratch area (`/`, the mount...). */
  isScratchAncestor(normalPath: string): boolean {
    const mount = this.scratchMount;
    if (mount === null) return false;
    return this.isScratch(normalPath) || normalPath === "/" || mount.startsWith(`${normalPath}/`);
  }

  scratchIsEmpty(): boolean {
    if (!this.scratch || !this.scratchMount) return true;
    const mount = this.scratchMount;
    return !this.scratch.getAllPaths().some((path) => path.startsWith(`${mount}/`));
  }

  // ---- internals -----------------------------------------------------------------------------

  private async readPage(normalPath: string, asked: string): Promise<string> {
    if (this.index.files.has(normalPath)) {
      if (asked.length > 1 && asked.endsWith("/")) throw new PosixError("ENOTDIR", "open", asked);
      const view = pageView(normalPath);
      if (view !== undefined) return view;
      try {
        return await this.pages.read(normalPath);
      } catch (error) {
        // The command will print its own "No such file" for this; the session replaces that.
        noteStoreFailure(error, { path: asked });
        throw error;
      }
    }
    if (this.isNullDevice(normalPath)) return "";
    if (this.index.directories.has(normalPath)) throw new PosixError("EISDIR", "read", asked);
    throw new PosixError("ENOENT", "open", asked);
  }

  private children(dir: string): TreeDirent[] | undefined {
    const children = this.index.directories.get(dir)?.children;
    if (dir !== "/" || !this.scratchMount) return children;
    if (!this.rootChildren) {
      const name = this.scratchMount.slice(1).split("/")[0]!;
      const merged = (children ?? []).filter((entry) => entry.name !== name);
      merged.push({ name, isDirectory: true });
      merged.sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
      this.rootChildren = merged;
    }
    return this.rootChildren;
  }

  private normal(path: string): string {
    if (path === "" || path.includes("\0")) throw new PosixError("ENOENT", "open", path);
    return posix.resolve("/", path);
  }

  /** `/dev/null`, unless the docs themselves have a `/dev` (they win: paths never change meaning). */
  private isNullDevice(normalPath: string): boolean {
    return normalPath === NULL_DEVICE && !this.index.directories.has("/dev") && !this.index.files.has("/dev");
  }

  private isScratch(normalPath: string): boolean {
    const mount = this.scratchMount;
    return mount !== null && (normalPath === mount || normalPath.startsWith(`${mount}/`));
  }

  private locate(path: string, operation: string) {
    if (path === "" || path.includes("\0")) throw new PosixError("ENOENT", operation, path);
    const normalPath = posix.resolve("/", path);
    const scratch = this.scratch && this.isScratch(normalPath) ? this.scratch : null;
    return { path: normalPath, scratch, trailingSlash: path.length > 1 && path.endsWith("/") };
  }

  private writable(path: string, operation: string): InMemoryFs {
    const normalPath = this.normal(path);
    if (this.scratch && this.isScratch(normalPath)) return this.scratch;
    throw new PosixError("EROFS", operation, path);
  }
}
