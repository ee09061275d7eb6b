import { ClosedError } from "@atrium/spec";
import { Bash, type CustomCommand } from "just-bash";
import type { Access, DocStore } from "../doc-store/doc-store.js";
import { storeFailureError, watchStoreFailures } from "../doc-store/store-failures.js";
import type { StoreUnavailableError } from "../errors.js";
import { DocsFs } from "../fs/docs-fs.js";
import { PageCache } from "../fs/page-cache.js";
import { PageSource } from "../fs/page-source.js";
import { isPosixError } from "../fs/posix-error.js";
import { type TreeCache, treeCacheFor } from "../fs/tree-cache.js";
import { createGrepCommands } from "../grep/grep-command.js";
import { createRgCommand } from "../grep/rg-command.js";
import { type ChromafsLimits, DEFAULT_CHROMAFS_LIMITS } from "../limits.js";
import { createSearchCommand } from "../search/search-command.js";
import { directoryGlobPlugin } from "../shell/directory-glob.js";
import { createGnuCommands, WRITTEN_ORDER_COMMANDS } from "../shell/gnu-commands.js";
import { mergedStderrPlugin } from "../shell/merged-stderr.js";
import { trustedStore } from "./trusted-store.js";
export interface DocsSessionOptions {
  store: DocStore;
  /** The user's groups; pages restricted to other groups do not exist in this session. */
  groups?: readonly string[];
  /** Starting directory (default `/`). */
  cwd?: string;
  /** Shared tree cache; defaults to the one cache of `store`. */
  treeCache?: TreeCache;
  /** Narrow grep with the store (default true); false runs just-bash's grep over every file. */
  accelerateGrep?: boolean;
  /** A private page cache of this many bytes instead of the tree cache's shared one. */
  pageCacheBytes?: number;
  /** Awaited before each filesystem read (see `DocsFsOptions.yieldPoint`); pool workers set it. */
  yieldPoint?: () => Promise<void>;
}

export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /**
   * Set when the command line needed the store and could not reach it: the result is then
   * `STORE_UNAVAILABLE_EXIT_CODE` with this error's message as stderr and no stdout, never
   * what the command made of the pages it could read.
   */
  storeUnavailable?: StoreUnavailableError;
}

/** Exit status of a command line that could not reach the store (grep's "trouble" status). */
export const STORE_UNAVAILABLE_EXIT_CODE = 2;

/** `await using session = await openDocsSession(...)` closes it at the end of the block. */
export interface DocsSession extends AsyncDisposable {
  readonly bash: Bash;
  readonly fs: DocsFs;
  readonly access: Access;
  /** Store round trips for page content so far (cache misses), for tests and benchmarks. */
  readonly pageFetches: number;
  /**
   * Runs one command line. The working directory carries over to the next call (as in a
   * terminal); variables and functions do not (each call is a fresh just-bash script).
   */
  exec(command: string, options?: { signal?: AbortSignal; cwd?: string }): Promise<CommandResult>;
  /** The directory the next command starts in. */
  readonly cwd: string;
  close(): Promise<void>;
}

/** just-bash's default bound on array elements, which is also its bound on the lines of one file grep reads. */
const JUST_BASH_MAX_ARRAY_ELEMENTS = 1_000_000;

/**
 * The work just-bash's grep and rg may spend on one file — they count a unit per KiB read, per
 * line and per match printed (`-o`), and stop with "matching work limit exceeded" past it — for
 * the largest page ingest accepts: every line once and matched once, plus the KiB.
 */
export function pageSearchWork(limits: Readonly<ChromafsLimits> = DEFAULT_CHROMAFS_LIMITS): number {
  return 2 * limits.maxPageLines + Math.ceil(limits.maxPageBytes / 1024) + 1;
}

/**
 * just-bash's execution limits for a docs session: generous for reading, bounded for loops, and
 * never below what one page needs, so every page ingest accepts can be printed whole by `cat`
 * and searched by `grep`/`rg`. just-bash bounds grep's work on a file by the loop limit (rg's
 * exactly, grep's by up to ten times it within `maxArrayElements`); shell loops stay bounded by
 * `maxCommandCount`, which every iteration spends.
 */
export function sessionExecutionLimits(limits: Readonly<ChromafsLimits> = DEFAULT_CHROMAFS_LIMITS) {
  const pageWork = pageSearchWork(limits);
  return {
    maxCommandCount: limits.maxSessionCommands,
    maxLoopIterations: Math.max(limits.maxSessionLoopIterations, pageWork),
    maxArrayElements: Math.max(JUST_BASH_MAX_ARRAY_ELEMENTS, pageWork),
    maxOutputSize: Math.max(limits.maxSessionOutputBytes, limits.maxPageBytes),
    maxExecutionTimeMs: limits.commandTimeoutMs,
    maxFileSystemBytes: limits.maxSessionFileSystemBytes,
  };
}

/**
 * A shell over the docs: just-bash on a `DocsFs` whose tree comes from the shared cache, with
 * `grep` narrowed by the store and a `search` command. Opening one costs a cache lookup and a few
 * object allocations once the tree is cached; nothing is fetched until a command reads a page.
 */
export async function openDocsSession(options: DocsSessionOptions): Promise<DocsSession> {
  const access: Access = { groups: [...(options.groups ?? [])] };
  const treeCache = options.treeCache ?? treeCacheFor(options.store);
  const index = treeCache.peek(access) ?? (await treeCache.index(access));
  const store = trustedStore(options.store);
  const pageCache =
    options.pageCacheBytes === undefined ? treeCache.pages : new PageCache(options.pageCacheBytes);
  const pages = new PageSource(store, access, pageCache);
  const fs = new DocsFs({ index, pages, yieldPoint: options.yieldPoint });
  const acceleration = options.accelerateGrep === false ? null : { store, access, index, pages, fs };
  const commands: CustomCommand[] = [
    createSearchCommand(store, access),
    ...createGrepCommands(acceleration),
    ...createGnuCommands(),
  ];
  if (acceleration) commands.push(createRgCommand(acceleration));
  const bash = new Bash({
    fs,
    cwd: options.cwd ?? "/",
    env: { HOME: "/", USER: "docs", LANG: "C.UTF-8" },
    customCommands: commands,
    executionLimits: sessionExecutionLimits(),
  });
  bash.registerTransformPlugin(directoryGlobPlugin());
  bash.registerTransformPlugin(mergedStderrPlugin(WRITTEN_ORDER_COMMANDS));
  let closed = false;
  let cwd = options.cwd ?? "/";
  return {
    bash,
    fs,
    access,
    get pageFetches() {
      return pages.fetches;
    },
    get cwd() {
      return cwd;
    },
    async exec(command, execOptions = {}) {
      if (closed) throw new ClosedError("docs session");
      const {
        value: result,
        thrown,
        failure,
      } = await watchStoreFailures(() =>
        bash.exec(command, { signal: execOptions.signal, cwd: execOptions.cwd ?? cwd }),
      );
      const next = result?.env.PWD;
      if (next && (await fs.exists(next))) cwd = next;
      if (failure) {
        const error = storeFailureError(failure, result?.stderr ?? "");
        return {
          stdout: "",
          stderr: `${error.message}\n`,
          exitCode: STORE_UNAVAILABLE_EXIT_CODE,
          storeUnavailable: error,
        };
      }
      if (result) return { stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode };
      // just-bash lets a failed output redirection escape exec; bash prints this and goes on.
      if (isPosixError(thrown, "EROFS")) {
        return { stdout: "", stderr: `bash: ${thrown.path}: Read-only file system\n`, exitCode: 1 };
      }
      throw thrown;
    },
    async close() {
      closed = true;
    },
    async [Symbol.asyncDispose]() {
      closed = true;
    },
  };
}
