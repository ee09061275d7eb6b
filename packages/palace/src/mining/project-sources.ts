import { extname, resolve } from "node:path";
import type { DrawerDraft } from "../drawers/drawer.js";
import { chunkProjectFile, isMarkdownPath, markdownHeadings } from "../formats/chunk-project-file.js";
import type { MineLimits } from "../limits.js";
import { throwIfAborted } from "./abort.js";
import { planFolderRooms } from "./folder-rooms.js";
import { looksBinary, type ProjectFile, walkProject } from "./project-walker.js";
import { readRegularFile } from "./read-regular-file.js";
import type { RoomClassifier } from "./rooms.js";
import { type SourceItem, sourceHash, sourceKey } from "./source-job.js";
import { tooManyFiles } from "./too-many-files.js";

/**
 * A project folder as sources, one per file. The walk comes first (rooms are planned over the
 * whole tree), then each file is read, classified, hashed, and chunked only if it changed.
 */
export async function* projectSources(
  root: string,
  context: { wing: string; classifier: RoomClassifier; limits: MineLimits; signal?: AbortSignal },
): AsyncGenerator<SourceItem> {
  const { wing, classifier, limits } = context;
  const files: ProjectFile[] = [];
  for await (const entry of walkProject(root, {
    maxFileBytes: limits.maxProjectFileBytes,
    signal: context.signal,
  })) {
    if (entry.type === "excluded") yield { type: "excluded", file: entry.path, reason: entry.reason };
    else {
      files.push(entry.file);
      if (files.length > limits.maxFiles) throw tooManyFiles(root, limits.maxFiles);
    }
  }
  yield { type: "files", files: files.length };
  const origin = `project:${resolve(root)}`;
  // A file the walk found is still part of the project, even if reading it failed this time.
  const present = new Set(files.map((file) => sourceKey("project", wing, file.path)));
  const folderRooms = planFolderRooms(
    files.map((file) => ({
      path: file.path,
      weight: Math.max(1, Math.ceil(file.size / limits.maxChunkChars)),
    })),
  );
  for (const file of files) {
    throwIfAborted(context.signal);
    let bytes: Buffer;
    try {
      const read = await readRegularFile(file.absolutePath, limits.maxProjectFileBytes);
      if (!("bytes" in read)) {
        // It grew past the limit after the walk measured it: left out, as the walk would have.
        present.delete(sourceKey("project", wing, file.path));
        yield { type: "excluded", file: file.path, reason: "too-large" };
        yield { type: "file-done", file: file.path };
        continue;
      }
      bytes = read.bytes;
    } catch (error) {
      yield {
        type: "error",
        error: { file: file.path, message: `could not be read: ${(error as Error).message}` },
      };
      yield { type: "file-done", file: file.path };
      continue;
    }
    if (looksBinary(bytes)) {
      present.delete(sourceKey("project", wing, file.path));
      yield { type: "excluded", file: file.path, reason: "binary" };
      yield { type: "file-done", file: file.path };
      continue;
    }
    const text = new TextDecoder().decode(bytes);
    const headings = isMarkdownPath(file.path) ? markdownHeadings(text) : [];
    const room = classifier.projectRoom({
      path: file.path,
      folderRoom: folderRooms.get(file.path),
      headings,
      content: text,
    });
    const hall = hallOf(file.path);
    const timestamp = new Date(file.mtimeMs).toISOString();
    const key = sourceKey("project", wing, file.path);
    yield {
      type: "job",
      job: {
        key,
        file: file.path,
        origin,
        hash: sourceHash({ mode: "project", wing, room, hall, maxChunkChars: limits.maxChunkChars }, text),
        drafts: () =>
          chunkProjectFile(file.path, text, limits.maxChunkChars).map(
            (chunk): DrawerDraft => ({
              content: chunk.content,
              wing,
              room,
              hall,
              source: key,
              position: chunk.position,
              timestamp,
              metadata: {
                file: file.path,
                lineStart: chunk.lineStart,
                lineEnd: chunk.lineEnd,
                ...(chunk.heading ? { heading: chunk.heading } : {}),
              },
            }),
          ),
      },
    };
    yield { type: "file-done", file: file.path };
  }
  // Deleted, now ignored, too large or binary: no longer part of the project.
  yield { type: "sweep", sweep: { origin, keys: present } };
}

const DOC_EXTENSIONS = new Set([".md", ".mdx", ".markdown", ".txt", ".rst", ".adoc", ".org", ".tex"]);
const CONFIG_EXTENSIONS = new Set([
  ".json",
  ".jsonc",
  ".yaml",
  ".yml",
  ".toml",
  ".ini",
  ".cfg",
  ".conf",
  ".env",
  ".xml",
]);

/** The hall groups a wing's drawers by kind of file. */
function hallOf(path: string): string {
  const extension = extname(path).toLowerCase();
  if (
    DOC_EXTENSIONS.has(extension) ||
    /^(readme|license|licence|changelog|notice)$/i.test(path.split("/").pop()!)
  ) {
    return "docs";
  }
  if (CONFIG_EXTENSIONS.has(extension) || path.split("/").pop()!.startsWith(".")) return "config";
  return "code";
}
