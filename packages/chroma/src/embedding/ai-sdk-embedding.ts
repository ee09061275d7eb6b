import { AbortError, ConfigError, type Embedding, type EmbedOptions, errorMessage } from "@atrium/spec";
import type { EmbeddingModel } from "ai";
import { resolveChromaLimits } from "../limits.js";

export interface AiSdkEmbeddingOptions {
  /** Stable id stored with the collection; default derived from the model's provider and id. */
  id?: string;
  /** Expected vector size; when set, every vector is checked against it. */
  dimensions?: number;
  /** Texts per request (default `maxEmbedBatchTexts` of the limits); larger inputs take several. */
  maxBatchSize?: number;
}

/**
 * A neural embedding from any AI SDK embedding model (OpenAI, Ollama, a local server, ...), as
 * a spec `Embedding` (not deterministic: a remote model may drift in the last digits).
 * Opt-in: it needs the provider's network endpoint or local weights, neither of which the
 * offline default needs. Texts go out in requests of at most `maxBatchSize` (the model's own
 * per-call limit applies too, when it is lower): providers refuse or time out on larger ones.
 */
export function aiSdkEmbedding(model: EmbeddingModel, options: AiSdkEmbeddingOptions = {}): Embedding {
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
 * resolving a spec costs nothing until a text is embedded. Without `dimensions`, the first
 * answer sets them and later answers are checked against it.
 */
export function loadedAiSdkEmbedding(
  load: () => Promise<EmbeddingModel>,
  options: AiSdkEmbeddingOptions & { id: string },
): Embedding {
  const { id } = options;
  const { maxEmbedBatchTexts } = resolveChromaLimits({ maxEmbedBatchTexts: options.maxBatchSize });
  let dimensions = options.dimensions;
  let loading: Promise<Exclude<EmbeddingModel, string>> | undefined;
  const embed = async (texts: readonly string[], { signal }: EmbedOptions = {}): Promise<number[][]> => {
    if (signal?.aborted) throw new AbortError(`Embedding ${id} was aborted`, { cause: signal.reason });
    if (texts.length === 0) return [];
    loading ??= load() as Promise<Exclude<EmbeddingModel, string>>;
    const model = await loading;
    // Loaded on first use: the AI SDK (and OpenTelemetry under it) stays out of every process
    // that only uses the offline embedding, such as the docs CLI.
    const { embedMany } = await import("ai");
    const embeddings: number[][] = [];
    for (let start = 0; start < texts.length; start += maxEmbedBatchTexts) {
      const batch = await embedMany({
        model,
        values: texts.slice(start, start + maxEmbedBatchTexts),
        ...(signal ? { abortSignal: signal } : {}),
      }).catch((error: unknown) => {
        if (signal?.aborted) throw new AbortError(`Embedding ${id} was aborted`, { cause: error });
        // The AI SDK's message ("Cannot connect to API: ...") doesn't say which embedding failed.
        throw new Error(`Embedding ${id} failed: ${errorMessage(error)}`, { cause: error });
      });
      embeddings.push(...batch.embeddings);
    }
    const expected = dimensions ?? embeddings[0]?.length;
    const wrong = embeddings.find((vector) => vector.length !== expected);
    if (wrong) {
      throw new ConfigError(
        `Embedding model ${model.modelId} returned ${wrong.length}-dimensional vectors; ${expected} were expected`,
      );
    }
    dimensions = expected;
    return embeddings;
  };
  return {
    id,
    deterministic: false,
    get dimensions() {
      return dimensions;
    },
    embed,
  };
}
