import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { EMBEDDING_SPEC_FORMS, embedText, hashingEmbedding } from "@atrium/chroma";
import { runCli } from "@atrium/kit/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestChroma, type TestChroma } from "../../test/fixtures/ingest-fixtures.js";
import { ingestDocs } from "../ingest/ingest-docs.js";
import { docsCli } from "./docs-cli.js";

const PAGES: Record<string, string> = {
  "billing/invoices.md": "# Invoices\n\nDownload monthly invoices as PDF from the billing settings.\n",
  "auth/tokens.md": "# API tokens\n\nCreate a personal access token to call the REST API.\n",
  "deploy/domains.md": "# Custom domains\n\nPoint a CNAME record at the host to serve docs on your domain.\n",
};

/**
 * The OpenAI embeddings API on loopback (the neural model is the one part that can't be real
 * offline): each text's vector is its 64-dimensional hashing embedding, so search still ranks
 * by shared words. Counts the texts it embeds.
 */
async function startEmbeddingsServer() {
  const embedded: string[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      const { model, input } = JSON.parse(body) as { model: string; input: string[] };
      embedded.push(...input);
      const data = input.map((text, index) => ({
        object: "embedding",
        index,
        embedding: embedText(text, 64),
      }));
      response.setHeader("content-type", "application/json");
      response.end(
        JSON.stringify({ object: "list", model, data, usage: { prompt_tokens: 0, total_tokens: 0 } }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return { url, embedded, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function capture() {
  let text = "";
  return { stream: { write: (chunk: string) => (text += chunk) }, text: () => text };
}

async function cli(command: "ingest" | "sh" | "mcp", argv: string[]) {
  const stdout = capture();
  const stderr = capture();
  const io = { stdin: process.stdin, stdout: stdout.stream, stderr: stderr.stream };
  const code = await runCli(docsCli(), [command, ...argv], io);
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe("--embedding", () => {
  let chroma: TestChroma;
  let embeddings: Awaited<ReturnType<typeof startEmbeddingsServer>>;
  let dir: string;
  let spec: string;
  let at: string[];
  beforeAll(async () => {
    chroma = await startTestChroma("atrium-embedding-cli-");
    embeddings = await startEmbeddingsServer();
    dir = join(chroma.root, "docs");
    for (const [path, text] of Object.entries(PAGES)) {
      await mkdir(join(dir, path, ".."), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    spec = `openai-compatible:${embeddings.url}#test-embed`;
    at = ["--chroma-url", chroma.server.url];
  });
  afterAll(async () => {
    await embeddings?.close();
    await chroma?.close();
  });

  it("ingests with a neural embedding that sh then finds in the collection's metadata", async () => {
    const ingest = await cli("ingest", [
      dir,
      "--collection",
      "neural",
      ...at,
      "--embedding",
      spec,
      "--json",
      "-q",
    ]);
    expect(ingest.stderr).toBe("");
    expect(ingest.code).toBe(0);
    expect(JSON.parse(ingest.stdout).pages).toEqual({
      added: 3,
      changed: 0,
      removed: 0,
      unchanged: 0,
      total: 3,
    });
    const ingested = embeddings.embedded.length;
    expect(ingested).toBe(4); // three chunks and the path tree

    const search = await cli("sh", ["--collection", "neural", ...at, "-c", 'search "monthly invoices PDF"']);
    expect(search).toEqual({
      code: 0,
      stdout: "/billing/invoices.md: Download monthly invoices as PDF from the billing settings.\n",
      stderr: "",
    });
    expect(embeddings.embedded.slice(ingested)).toEqual(["monthly invoices PDF"]);

    // A re-ingest without the flag keeps the recorded embedding too.
    const again = await cli("ingest", [dir, "--collection", "neural", ...at, "--json", "-q"]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).pages.unchanged).toBe(3);
  });

  it("refuses an embedding other than the recorded one, naming the flag to pass", async () => {
    const refused = `Collection neural holds vectors from embedding ${spec}, not hashing-v1-384; use the same embedding (atrium-docs: --embedding ${spec}), or re-ingest with --rebuild\n`;
    expect(await cli("sh", ["--collection", "neural", ...at, "--embedding", "hashing", "-c", "ls"])).toEqual({
      code: 1,
      stdout: "",
      stderr: `atrium-docs sh: ${refused}`,
    });
    process.env.ATRIUM_EMBEDDING = "hashing";
    try {
      expect(await cli("ingest", [dir, "--collection", "neural", ...at, "-q"])).toEqual({
        code: 1,
        stdout: "",
        stderr: `atrium-docs ingest: ${refused}`,
      });
    } finally {
      delete process.env.ATRIUM_EMBEDDING;
    }
  });

  it("says which embedding to pass when the recorded one can't be resolved", async () => {
    const custom = { ...hashingEmbedding({ dimensions: 64 }), id: "my-embedder-v2" };
    await ingestDocs({ dir, collection: "custom", url: chroma.server.url, embedding: custom });
    expect(await cli("sh", ["--collection", "custom", ...at, "-c", "ls"])).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "atrium-docs sh: Collection custom was ingested with embedding my-embedder-v2, which can't be used as recorded (it is none of the --embedding forms); pass --embedding <spec> (or set ATRIUM_EMBEDDING) naming that embedding\n",
    });
  });

  it("a bad spec is a usage error (exit 2) naming the accepted forms, before anything starts", async () => {
    const unknown = (command: string) =>
      `Unknown embedding "bge-m3"; use one of:\n  ${EMBEDDING_SPEC_FORMS} (see atrium-docs ${command} --help)\n`;
    const offline = ["--collection", "neural", "--chroma-url", "http://127.0.0.1:9", "--embedding", "bge-m3"];
    expect(await cli("sh", [...offline, "-c", "ls"])).toEqual({
      code: 2,
      stdout: "",
      stderr: `atrium-docs sh: ${unknown("sh")}`,
    });
    expect(await cli("mcp", offline)).toEqual({
      code: 2,
      stdout: "",
      stderr: `atrium-docs mcp: ${unknown("mcp")}`,
    });
    expect(await cli("ingest", [dir, ...offline])).toEqual({
      code: 2,
      stdout: "",
      stderr: `atrium-docs ingest: ${unknown("ingest")}`,
    });
    expect(await cli("sh", ["--dir", dir, "--embedding", "hashing", "-c", "ls"])).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "atrium-docs sh: --embedding applies to a Chroma collection, not to --dir (see atrium-docs sh --help)\n",
    });
  });
});
