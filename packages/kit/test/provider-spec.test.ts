import { ConfigError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import {
  type ProviderSpecSyntax,
  parseProviderSpec,
  providerApiKey,
  providerBaseUrl,
} from "../src/provider/provider-spec.js";

const SYNTAX: ProviderSpecSyntax = {
  subject: "model string",
  providers: ["openai", "ollama", "openai-compatible"],
  forms: ["openai:<model>", "ollama:<model>", "openai-compatible:<baseURL>#<model>"],
  compatibleExample: "openai-compatible:http://127.0.0.1:8000/v1#qwen",
};

function refusal(spec: string): ConfigError {
  try {
    parseProviderSpec(spec, SYNTAX);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`expected ${JSON.stringify(spec)} to be refused`);
}

describe("parseProviderSpec", () => {
  it("splits provider and model, trimming around both", () => {
    expect(parseProviderSpec("openai:gpt-4o-mini", SYNTAX)).toEqual({
      provider: "openai",
      model: "gpt-4o-mini",
      id: "openai:gpt-4o-mini",
    });
    expect(parseProviderSpec("  ollama : llama3.2:8b ", SYNTAX)).toEqual({
      provider: "ollama",
      model: "llama3.2:8b",
      id: "ollama:llama3.2:8b",
    });
  });

  it("reads openai-compatible's base URL before the last # and drops trailing slashes", () => {
    expect(parseProviderSpec("openai-compatible:http://127.0.0.1:8000/v1//#org/model", SYNTAX)).toEqual({
      provider: "openai-compatible",
      model: "org/model",
      baseURL: "http://127.0.0.1:8000/v1",
      id: "openai-compatible:http://127.0.0.1:8000/v1//#org/model",
    });
    expect(parseProviderSpec("openai-compatible: https://host/v1/ # qwen ", SYNTAX)).toEqual({
      provider: "openai-compatible",
      model: "qwen",
      baseURL: "https://host/v1",
      id: "openai-compatible:https://host/v1/ # qwen",
    });
  });

  it("refuses unknown providers and empty models, listing the accepted forms", () => {
    for (const spec of ["", "gpt-4o", "openai:", "openai:   ", ":gpt", "cohere:command-r", "OpenAI:gpt-4o"]) {
      expect(refusal(spec).message).toBe(
        `Unknown model string ${JSON.stringify(spec)}; use one of:\n  openai:<model>\n  ollama:<model>\n  openai-compatible:<baseURL>#<model>`,
      );
    }
  });

  it("refuses a non-string spec with the same message", () => {
    expect(refusal(42 as unknown as string).message).toBe(
      "Unknown model string 42; use one of:\n  openai:<model>\n  ollama:<model>\n  openai-compatible:<baseURL>#<model>",
    );
  });

  it("explains a missing #<model> and a base URL that is not http(s)", () => {
    expect(refusal("openai-compatible:http://127.0.0.1:8000/v1").message).toBe(
      'Model string "openai-compatible:http://127.0.0.1:8000/v1" has no model name: write openai-compatible:<baseURL>#<model>, e.g. openai-compatible:http://127.0.0.1:8000/v1#qwen',
    );
    expect(refusal("openai-compatible:http://h/v1#  ").message).toContain("has no model name");
    expect(refusal("openai-compatible:localhost:8000#m").message).toBe(
      'openai-compatible:localhost:8000#m: the base URL "localhost:8000" is not an http(s) URL; give one like http://127.0.0.1:8000/v1',
    );
    expect(refusal("openai-compatible:#m").message).toBe(
      'openai-compatible:#m: the base URL "" is not an http(s) URL; give one like http://127.0.0.1:8000/v1',
    );
  });
});

describe("providerBaseUrl", () => {
  it("keeps http(s) URLs without trailing slashes", () => {
    expect(providerBaseUrl("https://api.openai.com/v1///", "openai:x")).toBe("https://api.openai.com/v1");
    expect(providerBaseUrl("http://127.0.0.1:11434/v1", "ollama:x")).toBe("http://127.0.0.1:11434/v1");
  });

  it("names the environment variable a bad URL came from", () => {
    expect(() => providerBaseUrl("ftp://x", "ollama:bge-m3", "OLLAMA_BASE_URL")).toThrow(
      new ConfigError(
        'ollama:bge-m3: the base URL "ftp://x" (from OLLAMA_BASE_URL) is not an http(s) URL; give one like http://127.0.0.1:8000/v1',
      ),
    );
  });
});

describe("providerApiKey", () => {
  it("returns the trimmed key or names the variable to set", () => {
    expect(providerApiKey({ OPENAI_API_KEY: " sk-1 " }, "OPENAI_API_KEY", "openai:x")).toBe("sk-1");
    for (const env of [{}, { OPENAI_API_KEY: "  " }]) {
      expect(() => providerApiKey(env, "OPENAI_API_KEY", "openai:x")).toThrow(
        new ConfigError("openai:x needs an API key: set the environment variable OPENAI_API_KEY"),
      );
    }
  });
});
