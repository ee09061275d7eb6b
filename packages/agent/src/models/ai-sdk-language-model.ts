import type { LanguageModel } from "ai";

/**
 * What `fromAiSdk` takes: an AI SDK 6 language model object (`openai("gpt-4o-mini")`,
 * `anthropic(...)`, `createOpenAICompatible(...).chatModel(...)`, any provider's), that is a
 * `LanguageModelV3` or `LanguageModelV2`. Declared here by the members this package reads rather
 * than imported from `ai`, so that this package's published declarations do not pull in the AI
 * SDK's, which need the DOM lib and `@types/json-schema` to type-check under
 * `skipLibCheck: false`. The adapter hands the object to the AI SDK as it is.
 */
export interface AiSdkLanguageModel {
  readonly specificationVersion: "v2" | "v3";
  /** e.g. "openai.chat"; its first segment names the provider in `Model.id`. */
  readonly provider: string;
  readonly modelId: string;
  // `never` parameters: every provider's call options fit, and nothing here calls these itself.
  doGenerate(options: never): PromiseLike<unknown>;
  doStream(options: never): PromiseLike<unknown>;
}

/** The AI SDK's own type for the same object, inside this package only. */
export type ConcreteLanguageModel = Exclude<LanguageModel, string>;

/**
 * The declared shape back as the AI SDK's type. Sound as long as every `ConcreteLanguageModel`
 * fits `AiSdkLanguageModel` (`Fits` below fails to compile otherwise) and callers pass real
 * AI SDK models, which is what the shape's documentation asks.
 */
export function asConcreteLanguageModel(model: AiSdkLanguageModel): ConcreteLanguageModel {
  return model as unknown as ConcreteLanguageModel;
}

// Compile-time check: a change in the AI SDK's model type that no longer fits the declared shape
// breaks the build here instead of in a user's code.
type Fits<T extends AiSdkLanguageModel> = T;
export type CheckedLanguageModel = Fits<ConcreteLanguageModel>;
