import { statSync } from "node:fs";
import type { ChromaServer } from "@atrium/chroma";
import { defineCommand, jsonText, UsageError } from "@atrium/kit/cli";
import { errorMessage } from "@atrium/spec";
import { validateCollectionName } from "../collection-schema/collection-name.js";
import { type Chroma, loadChroma } from "../collection-schema/load-chroma.js";
import { ingestDocs } from "../ingest/ingest-docs.js";
import { formatSummary, ingestProgressBar } from "../ingest/progress-reporter.js";
import { embeddingOption, recordedEmbedding } from "./store-args.js";

/**
 * `atrium-docs ingest …`. Usage (`--help`, bad arguments) never needs `@atrium/chroma`, the
 * optional peer: a user without it reads the options first, and the missing-peer error comes only
 * when an ingest would run. `load` stands in for it in tests.
 */
export function ingestCommand(load: (who: string) => Promise<Chroma> = loadChroma) {
  return defineCommand({
    name: "ingest",
    summary: "put a docs folder into a Chroma collection",
    usage: "<dir> --collection <name> [--chroma-url URL | --path DIR] [options]",
    description:
      "Ingest a directory of .md/.mdx pages (and docs.json) into a Chroma collection.\nRe-running changes only what changed. Progress goes to stderr on a terminal.",
    arguments: [["<dir>", "the folder that holds the pages"]],
    options: {
      collection: {
        type: "string",
        value: "<name>",
        help: "collection to write (3-512 of letters, digits, . _ -)",
      },
      "chroma-url": {
        type: "string",
        value: "<url>",
        help: "a running Chroma server (default: $ATRIUM_CHROMA_URL)",
      },
      path: {
        type: "string",
        value: "<dir>",
        help: "a data dir; starts (or reuses) an embedded server there\n(default: $ATRIUM_CHROMA_PATH)",
      },
      "groups-file": {
        type: "string",
        value: "<file>",
        help: 'JSON of glob -> groups, e.g. {"internal/**": ["staff"]};\nstored with the collection and applied again by later\ningests without --groups-file; a new file replaces it',
      },
      "clear-groups": {
        type: "boolean",
        help: "drop the stored groups mapping (as a file holding {} does);\nonly front-matter groups: then restrict pages",
      },
      rebuild: {
        type: "boolean",
        help: "ingest everything anew into a new collection, which\nreplaces the old one only once complete (the old one,\nwith its groups mapping, stays in use until then)",
      },
      embedding: {
        type: "string",
        value: "<spec>",
        help: "how pages are embedded: hashing (offline), openai:<model>\n(OPENAI_API_KEY), ollama:<model> (OLLAMA_BASE_URL) or\nopenai-compatible:<baseURL>#<model>; default $ATRIUM_EMBEDDING,\nelse what the collection records, else hashing. Recorded with\nthe collection (sh and mcp then use it); changing it needs --rebuild",
      },
      json: { type: "boolean", help: "print the summary as JSON" },
      quiet: { type: "boolean", short: "q", help: "no progress output" },
    },
    positionals: { min: 1, max: 1, names: "<dir>" },
    async run({ values, positionals }, io) {
      const dir = positionals[0] as string;
      const collection = values.collection;
      if (!collection) throw new UsageError("missing --collection <name>");
      // Inputs are checked before anything is started or created (a server, a data dir).
      requireDirectory(dir, "the docs directory");
      const groupsFile = values["groups-file"];
      if (groupsFile !== undefined) requireFile(groupsFile, "--groups-file");
      // A bad name is a usage error, found before any server is started.
      try {
        validateCollectionName(collection);
      } catch (error) {
        throw new UsageError(errorMessage(error), { cause: error });
      }
      if (groupsFile !== undefined && values["clear-groups"]) {
        throw new UsageError("pass either --groups-file or --clear-groups, not both");
      }
      if (values["chroma-url"] && values.path)
        throw new UsageError("pass either --chroma-url or --path, not both");
      const url = values["chroma-url"] ?? (values.path ? undefined : io.env.ATRIUM_CHROMA_URL);
      const path = values.path ?? (url ? undefined : io.env.ATRIUM_CHROMA_PATH);
      if (!url && !path) {
        throw new UsageError(
          "say where Chroma is: --chroma-url <url> or --path <data dir> (or set ATRIUM_CHROMA_URL / ATRIUM_CHROMA_PATH)",
        );
      }
      const spec = values.embedding ?? (io.env.ATRIUM_EMBEDDING?.trim() || undefined);
      const chroma = await load("writing a Chroma collection");
      // A bad spec (or a missing key) is a usage error too, found before any server is started.
      const embedding = spec === undefined ? undefined : embeddingOption(() => chroma.resolveEmbedding(spec));
      const bar = ingestProgressBar({ stream: io.stderr, quiet: values.json || values.quiet });
      let server: ChromaServer | undefined;
      try {
        if (!url) server = await chroma.startChromaServer({ path: path as string });
        const serverUrl = url ?? (server as ChromaServer).url;
        const summary = await ingestDocs({
          embedding: embedding ?? (await recordedEmbedding(serverUrl, collection)),
          dir,
          collection,
          url: serverUrl,
          groupsFile,
          clearGroups: values["clear-groups"] === true,
          rebuild: values.rebuild === true,
          onProgress: bar.onProgress,
          // Said even with -q: it reports a past run that did not finish.
          onNotice: (message) => bar.print(`atrium-docs ingest: ${message}`),
        });
        bar.done();
        io.stdout.write(values.json ? jsonText(summary) : formatSummary(summary));
        return 0;
      } finally {
        bar.done();
        await server?.stop();
      }
    },
  });
}

/** A path the user gave that is not there is a failure (exit 1), as a missing file is anywhere. */
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
