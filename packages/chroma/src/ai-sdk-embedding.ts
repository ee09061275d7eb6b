import { ConfigError, errorMessage } from "@atrium/spec";
import type { EmbeddingModel } from "ai";
import type { AtriumEmbedding } from "./hashing-embedding.js";

export interface AiSdkEmbeddingOptions {
  /** Stable id stored with the collection; default derived from the model's provider and id. */
  id?: string;
  /** Expected vector size; when set, every vector is checked against it. */
  dimensions?: number;
  abortSignal?: AbortSignal;
}

/**
 * A neural embedding from any AI SDK embedding model (OpenAI, Ollama, a local server, ...).
 * Opt-in: it needs the provider's network endpoint or local weights, neither of which the
 * offline default needs. `embedMany` splits large batches by the model's own per-call limit.
 */
export function aiSdkEmbedding(model: EmbeddingModel, options: AiSdkEmbeddingOptions = {}): AtriumEmbedding {
  if (typeof model === "string") {
    throw new ConfigError(
      "aiSdkEmbedding needs an embedding model object (for example openai.embedding('text-embedding-3-small')), not a string id",
    );
  }
  return loadedAiSdkEmbedding(async () => model, {
    ...options,
    id: options.id ?? `ai-sdk-${model.provider}-${model.modelId}`,
  });
}

/**
 * `aiSdkEmbedding` over a model made on first use (`load` may import the provider package), so
 * resolving a spec costs nothing until a text is embedded.
 */
export function loadedAiSdkEmbedding(
  load: () => Promise<EmbeddingModel>,
  options: AiSdkEmbeddingOptions & { id: string },
): AtriumEmbedding {
  const { id } = options;
  let loading: Promise<Exclude<EmbeddingModel, string>> | undefined;
  const generate = async (texts: string[]): Promise<number[][]> => {
    if (texts.length === 0) return [];
    loading ??= load() as Promise<Exclude<EmbeddingModel, string>>;
    const model = await loading;
    // Loaded on first use: the AI SDK (and OpenTelemetry under it) stays out of every process
    // that only uses the offline embedding, such as the docs CLI.
    const { embedMany } = await import("ai");
    const { embeddings } = await embedMany({ model, values: texts, abortSignal: options.abortSignal }).catch(
      (error: unknown) => {
        // The AI SDK's message ("Cannot connect to API: ...") doesn't say which embedding failed.
        throw new Error(`Embedding ${id} failed: ${errorMessage(error)}`, {
          cause: error,
        });
      },
    );
    if (options.dimensions !== undefined) {
      const wrong = embeddings.find((vector) => vector.length !== options.dimensions);
      if (wrong) {
        throw new ConfigError(
          `Embedding model ${model.modelId} returned ${wrong.length}-dimensional vectors; ${options.dimensions} were expected`,
        );
      }
    }
    return embeddings;
  };
  return {
    id,
    name: id,
    dimensions: options.dimensions,
    generate,
    generateForQueries: generate,
    defaultSpace: () => "cosine",
    supportedSpaces: () => ["cosine", "l2", "ip"],
    getConfig: () => ({ id }),
  };
}
