import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface SeenEmbeddingRequest {
  path: string;
  authorization: string | undefined;
  model: string;
  input: string[];
}

export interface EmbeddingsServer {
  /** The OpenAI-style base URL, ending in /v1. */
  base: string;
  seen: SeenEmbeddingRequest[];
  close(): Promise<void>;
}

/**
 * A loopback server speaking the OpenAI embeddings API (the part that can't be real offline):
 * each text's vector is `vectorOf(text)`, answered after `delayMs`; every request is recorded.
 */
export async function startEmbeddingsServer(
  vectorOf: (text: string) => number[],
  delayMs = 0,
): Promise<EmbeddingsServer> {
  const seen: SeenEmbeddingRequest[] = [];
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      const { model, input } = JSON.parse(body) as { model: string; input: string[] };
      seen.push({ path: request.url ?? "", authorization: request.headers.authorization, model, input });
      const answer = () => {
        response.setHeader("content-type", "application/json");
        response.end(
          JSON.stringify({
            object: "list",
            model,
            data: input.map((text, index) => ({ object: "embedding", index, embedding: vectorOf(text) })),
            usage: { prompt_tokens: input.length, total_tokens: input.length },
          }),
        );
      };
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
