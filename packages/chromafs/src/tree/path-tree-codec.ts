import { gunzipSync, gzipSync } from "node:zlib";
import { PathTreeError } from "../errors.js";
import { DEFAULT_CHROMAFS_LIMITS } from "../limits.js";
import type { PathTree, PathTreeFile, WrittenPathTree } from "./path-tree.js";
import { migratePathTree } from "./path-tree-migrations.js";
import { refuseNewerFormat } from "./storage-format.js";

/** Tree → the document text stored under `__path_tree__`: base64 of gzipped JSON. */
export function encodePathTree(tree: WrittenPathTree): string {
  return gzipSync(Buffer.from(JSON.stringify(tree), "utf8"), { level: 9 }).toString("base64");
}

/**
 * The document text → a validated tree of the current format: a tree of an older format is
 * validated as it was written, then migrated; a newer one is refused (StorageFormatError).
 * `collection` names where it came from, for errors.
 */
export function decodePathTree(document: string | null | undefined, collection: string): PathTree {
  const fail = (why: string, cause?: unknown) =>
    new PathTreeError(
      collection,
      `The path tree of collection ${collection} is corrupt (${why}); re-run \`atrium-docs ingest <dir> --collection ${collection} --rebuild\``,
      { cause },
    );
  if (typeof document !== "string" || document.length === 0) throw fail("the tree document is empty");
  let json: string;
  try {
    json = gunzipSync(Buffer.from(document, "base64"), {
      maxOutputLength: DEFAULT_CHROMAFS_LIMITS.maxTreeJsonBytes,
    }).toString("utf8");
  } catch (error) {
    throw fail(`not gzip+base64: ${(error as Error).message}`, error);
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw fail(`not JSON: ${(error as Error).message}`, error);
  }
  if (!isRecord(value)) throw fail("not an object");
  const version = value.version;
  if (!isCount(version) || version < 1) {
    throw fail(`version ${JSON.stringify(version)} is not a storage format version`);
  }
  refuseNewerFormat(version, collection);
  const problem = findTreeProblem(value, version);
  if (problem) throw fail(problem);
  return migratePathTree(value, version);
}

/**
 * The first reason `value` is not a valid tree of storage format `version` (1 up to the
 * current one), or undefined when it is one.
 */
export function findTreeProblem(value: Record<string, unknown>, version: number): string | undefined {
  if (!isRecord(value.files)) return "`files` is not an object";
  for (const [path, file] of Object.entries(value.files)) {
    const pathProblem = findPathProblem(path);
    if (pathProblem) return `path ${JSON.stringify(path)}: ${pathProblem}`;
    const fileProblem = findFileProblem(file);
    if (fileProblem) return `${path}: ${fileProblem}`;
  }
  // Format 1 trees lack `groupRules` when written before the mapping was stored; later ones
  // always have it, so its absence there is damage, not an old tree.
  if (value.groupRules !== undefined || version >= 2) {
    if (!isRecord(value.groupRules)) return "`groupRules` is not an object";
    for (const [glob, groups] of Object.entries(value.groupRules)) {
      if (!isNameList(groups)) return `groupRules ${JSON.stringify(glob)}: not a list of group names`;
    }
  }
  if (version >= 2) return findChunkingProblem(value.chunking);
  return undefined;
}

function findChunkingProblem(chunking: unknown): string | undefined {
  if (!isRecord(chunking)) return "`chunking` is not an object";
  for (const key of ["chunker", "maxBytes", "mergeBytes"] as const) {
    const setting = chunking[key];
    if (!isCount(setting) || setting < 1) return `chunking.${key} is not a positive integer`;
  }
  return undefined;
}

function findPathProblem(path: string): string | undefined {
  if (!path.startsWith("/") || path.length < 2) return "not an absolute file path";
  if (path.endsWith("/")) return "ends with /";
  const segments = path.slice(1).split("/");
  if (segments.some((segment) => segment === "" || segment === "." || segment === ".."))
    return "has an empty, . or .. segment";
  if (path.includes("\0")) return "contains NUL";
  return undefined;
}

function findFileProblem(file: unknown): string | undefined {
  if (!isRecord(file)) return "entry is not an object";
  const entry = file as Partial<Record<keyof PathTreeFile, unknown>>;
  if (!isCount(entry.size)) return "size is not a non-negative integer";
  if (typeof entry.mtime !== "number" || !Number.isFinite(entry.mtime)) return "mtime is not a number";
  if (!isCount(entry.chunks)) return "chunks is not a non-negative integer";
  if (typeof entry.hash !== "string" || !/^[0-9a-f]{64}$/.test(entry.hash))
    return "hash is not a sha-256 hex string";
  if (entry.groups !== undefined && !isNameList(entry.groups)) return "groups is not a list of names";
  if (entry.lazy !== undefined && typeof entry.lazy !== "boolean") return "lazy is not a boolean";
  if (entry.title !== undefined && typeof entry.title !== "string") return "title is not a string";
  return undefined;
}

function isNameList(value: unknown): boolean {
  return Array.isArray(value) && value.every((name) => typeof name === "string" && name !== "");
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
