import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ConfigError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { AiSdkModel, fromAiSdk } from "./ai-sdk-model.js";

describe("fromAiSdk", () => {
  const languageModel = createOpenAICompatible({ name: "local", baseURL: "http://127.0.0.1:9/v1" }).chatModel(
    "qwen",
  );

  it("takes its id from the provider and model unless given one", () => {
    expect(fromAiSdk(languageModel).id).toBe("local:qwen");
    expect(fromAiSdk(languageModel, { id: "vllm:qwen" }).id).toBe("vllm:qwen");
  });

  it("wraps the adapter in retries unless retry is false", () => {
    expect(fromAiSdk(languageModel)).not.toBeInstanceOf(AiSdkModel);
    expect(fromAiSdk(languageModel, { retry: false })).toBeInstanceOf(AiSdkModel);
  });

  it("refuses timeouts that are not positive", () => {
    expect(() => fromAiSdk(languageModel, { timeoutMs: 0 })).toThrow(
      new ConfigError("timeoutMs must be a positive number of milliseconds; got 0"),
    );
    expect(() => fromAiSdk(languageModel, { chunkTimeoutMs: Number.POSITIVE_INFINITY })).toThrow(
      new ConfigError("chunkTimeoutMs must be a positive number of milliseconds; got Infinity"),
    );
  });

  it("refuses a model string, pointing at resolveModel", () => {
    // The type refuses it already; plain JavaScript does not.
    expect(() => fromAiSdk("openai/gpt-4o-mini" as never)).toThrow(
      new ConfigError(
        'fromAiSdk needs a LanguageModel object, not the string "openai/gpt-4o-mini"; for model strings use resolveModel, e.g. resolveModel("openai:gpt-4o-mini")',
      ),
    );
  });
});
