import { statSync } from "node:fs";
import { parseArgs } from "node:util";
import type { ChromaServer } from "@atrium/chroma";
import { type Embedding, errorMessage } from "@atrium/spec";
import { validateCollectionName } from "../collection-schema/collection-name.js";
import { type Chroma, loadChroma } from "../collection-schema/load-chroma.js";
import { ingestDocs } from "../ingest/ingest-docs.js";
import { formatSummary, type ProgressStream, progressReporter } from "../ingest/progress-reporter.js";
import { recordedEmbedding } from "./store-args.js";

export interface CommandIo {
  stdout: ProgressStream;
  stderr: ProgressStream;
}

export const INGEST_USAGE = `Usage: atrium-docs ingest <dir> --collection <name> [--chroma-url URL | --path DIR] [options]

Ingest a directory of .md/.mdx pages (and docs.json) into a Chroma collection.
Re-running changes only what changed.

  --collection <name>   collection to write (3-512 of letters, digits, . _ -)
  --chroma-url <url>    a running Chroma server (default: $ATRIUM_CHROMA_URL)
  --path <dir>          a data dir; starts (or reuses) an embedded server there
                        (default: $ATRIUM_CHROMA_PATH)
  --groups-file <file>  JSON of glob -> groups, e.g. {"internal/**": ["staff"]};
                        stored with the collection and applied again by later
                        ingests without --groups-file; a new file replaces it
  --clear-groups        drop the stored groups mapping (as a file holding {} does);
                        only front-matter groups: then restrict pages
  --rebuild             ingest everything anew into a new collection, which
                        replaces the old one only once complete (the old one,
                        with its groups mapping, stays in use until then)
  --embedding <spec>    how pages are embedded: hashing (offline), openai:<model>
                        (OPENAI_API_KEY), ollama:<model> (OLLAMA_BASE_URL) or
                        openai-compatible:<baseURL>#<model>; default $ATRIUM_EMBEDDING,
                        else what the collection records, else hashing. Recorded with
                        the collection (sh and mcp then use it); changing it needs --rebuild
  --json                print the summary as JSON
  -q, --quiet           no progress output
  -h, --help            show this help
`;

/**
 * `atrium-docs ingest …`; `argv` is what follows `ingest`. Resolves with the exit code. Usage
 * (`--help`, bad arguments) never needs `@atrium/chroma`, the optional peer: a user without it
 * reads the options first, and the missing-peer error comes only when an ingest would run.
 */
export async function runIngestCommand(
  argv: string[],
  io: CommandIo = { stdout: process.stdout, stderr: process.stderr },
  load: (who: string) => Promise<Chroma> = loadChroma,
): Promise<number> {
  let parsed: ReturnType<typeof parseIngestArgs>;
  try {
    parsed = parseIngestArgs(argv);
  } catch (error) {
    io.stderr.write(`atrium-docs ingest: ${(error as Error).message}\n\n${INGEST_USAGE}`);
    return 2;
  }
  if (parsed.help) {
    io.stdout.write(INGEST_USAGE);
    return 0;
  }
  let chroma: Chroma;
  try {
    chroma = await load("writing a Chroma collection");
  } catch (error) {
    io.stderr.write(`atrium-docs ingest: ${errorMessage(error)}\n`);
    return 1;
  }
  let embedding: Embedding | undefined;
  try {
    // A bad spec (or a missing key) is a usage error too, found before any server is started.
    embedding =
      parsed.embeddingSpec === undefined ? undefined : chroma.resolveEmbedding(parsed.embeddingSpec);
  } catch (error) {
    io.stderr.write(`atrium-docs ingest: ${(error as Error).message}\n\n${INGEST_USAGE}`);
    return 2;
  }
  let server: ChromaServer | undefined;
  const reporter = progressReporter(io.stderr);
  try {
    if (!parsed.url) server = await chroma.startChromaServer({ path: parsed.path as string });
    const url = parsed.url ?? (server as ChromaServer).url;
    const summary = await ingestDocs({
      embedding: embedding ?? (await recordedEmbedding(url, parsed.collection)),
      dir: parsed.dir,
      collection: parsed.collection,
      url,
      groupsFile: parsed.groupsFile,
      clearGroups: parsed.clearGroups,
      rebuild: parsed.rebuild,
      onProgress: parsed.quiet ? undefined : reporter.onProgress,
      // Said even with -q: it reports a past run that did not finish.
      onNotice: (message) => io.stderr.write(`atrium-docs ingest: ${message}\n`),
    });
    reporter.finish();
    io.stdout.write(parsed.json ? `${JSON.stringify(summary)}\n` : formatSummary(summary));
    return 0;
  } catch (error) {
    reporter.finish();
    const message = errorMessage(error);
    io.stderr.write(`atrium-docs ingest: ${message}\n`);
    return 1;
  } finally {
    await server?.stop();
  }
}

function parseIngestArgs(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      collection: { type: "string" },
      "chroma-url": { type: "string" },
      path: { type: "string" },
      "groups-file": { type: "string" },
      "clear-groups": { type: "boolean" },
      rebuild: { type: "boolean" },
      embedding: { type: "string" },
      json: { type: "boolean" },
      quiet: { type: "boolean", short: "q" },
      help: { type: "boolean", short: "h" },
    },
  });
  const help = values.help === true;
  if (help) return { help, dir: "", collection: "" };
  if (positionals.length !== 1) {
    throw new Error(
      positionals.length === 0 ? "missing <dir>" : `expected one <dir>, got ${positionals.length}`,
    );
  }
  if (!values.collection) throw new Error("missing --collection <name>");
  // Inputs are checked before anything is started or created (a server, a data dir).
  requireDirectory(positionals[0] as string, "the docs directory");
  if (values["groups-file"] !== undefined) requireFile(values["groups-file"], "--groups-file");
  // A bad name is a usage error (exit 2), found before any server is started.
  validateCollectionName(values.collection);
  if (values["groups-file"] !== undefined && values["clear-groups"]) {
    throw new Error("pass either --groups-file or --clear-groups, not both");
  }
  if (values["chroma-url"] && values.path) throw new Error("pass either --chroma-url or --path, not both");
  const url = values["chroma-url"] ?? (values.path ? undefined : process.env.ATRIUM_CHROMA_URL);
  const path = values.path ?? (url ? undefined : process.env.ATRIUM_CHROMA_PATH);
  if (!url && !path) {
    throw new Error(
      "say where Chroma is: --chroma-url <url> or --path <data dir> (or set ATRIUM_CHROMA_URL / ATRIUM_CHROMA_PATH)",
    );
  }
  return {
    help,
    embeddingSpec: values.embedding ?? (process.env.ATRIUM_EMBEDDING?.trim() || undefined),
    dir: positionals[0] as string,
    collection: values.collection,
    url,
    path,
    groupsFile: values["groups-file"],
    clearGroups: values["clear-groups"] === true,
    rebuild: values.rebuild === true,
    json: values.json === true,
    quiet: values.quiet === true,
  };
}

function requireDirectory(path: string, what: string): void {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats)
    throw new Error(`${what} ${path} does not exist; give the folder that holds the .md/.mdx pages`);
  if (!stats.isDirectory()) throw new Error(`${what} ${path} is not a directory`);
}

function requireFile(path: string, what: string): void {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats) throw new Error(`${what} ${path} does not exist`);
  if (!stats.isFile()) throw new Error(`${what} ${path} is not a file`);
}
