import { AbortError, ModelError } from "@atrium/spec";
import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import { isRetryableStatus, ProviderError, retryAfterFromHeaders, toModelError } from "./model-error.js";

const apiError = (statusCode: number | undefined, headers?: Record<string, string>, body?: string) =>
  new APICallError({
    message: "Bad Request",
    url: "http://127.0.0.1:1/v1/chat/completions",
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    responseBody: body,
    isRetryable: statusCode === undefined,
  });

describe("retryAfterFromHeaders", () => {
  it("reads retry-after-ms, Retry-After seconds and Retry-After dates", () => {
    expect(retryAfterFromHeaders({ "retry-after-ms": "1500.5" })).toBe(1500.5);
    expect(retryAfterFromHeaders({ "Retry-After": "3" })).toBe(3000);
    expect(
      retryAfterFromHeaders({ "retry-after": "Mon, 30 Nov 2026 00:00:10 GMT" }, Date.UTC(2026, 10, 30)),
    ).toBe(10_000);
    expect(
      retryAfterFromHeaders({ "retry-after": "Mon, 30 Nov 2026 00:00:10 GMT" }, Date.UTC(2026, 10, 31)),
    ).toBe(0);
  });

  it("ignores absent or unreadable values", () => {
    expect(retryAfterFromHeaders(undefined)).toBeUndefined();
    expect(retryAfterFromHeaders({})).toBeUndefined();
    expect(retryAfterFromHeaders({ "retry-after": "soon" })).toBeUndefined();
    expect(retryAfterFromHeaders({ "retry-after": "-4" })).toBeUndefined();
  });
});

describe("toModelError", () => {
  it("classifies statuses: 408, 429 and 5xx retry; other 4xx do not", () => {
    expect([400, 401, 403, 404, 409, 422, 408, 429, 500, 502, 503, 504].map(isRetryableStatus)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
  });

  it("names the model, the provider's message, and the key to check on a 401", () => {
    const error = toModelError(apiError(401, {}, '{"error":{"message":"Incorrect API key provided"}}'), {
      modelId: "openai:gpt-4o-mini",
      apiKeyEnvVar: "OPENAI_API_KEY",
    });
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: "MODEL", status: 401, isRetryable: false, isFatal: true });
    expect(error.message).toBe(
      "openai:gpt-4o-mini answered HTTP 401: Incorrect API key provided; the API key was rejected: check OPENAI_API_KEY",
    );
  });

  it("keeps the Retry-After of a 429", () => {
    const error = toModelError(apiError(429, { "retry-after": "7" }), { modelId: "m" }) as ProviderError;
    expect(error).toMatchObject({ status: 429, isRetryable: true, retryAfterMs: 7000 });
    expect(error.message).toBe(
      "m answered HTTP 429: Bad Request; rate limited or out of quota; retry later or lower the request rate",
    );
  });

  it("makes an abort by the user's signal an AbortError and a timeout a retryable ModelError", () => {
    const controller = new AbortController();
    controller.abort();
    const aborted = toModelError(new DOMException("x", "AbortError"), {
      modelId: "m",
      signal: controller.signal,
    });
    expect(aborted).toBeInstanceOf(AbortError);
    expect(aborted.message).toBe("The call to m was aborted");
    const timedOut = toModelError(new DOMException("Call timeout of 150ms exceeded", "TimeoutError"), {
      modelId: "m",
    });
    expect(timedOut).toBeInstanceOf(ModelError);
    expect(timedOut).toMatchObject({ isRetryable: true, status: undefined });
    expect(timedOut.message).toBe(
      "m did not answer in time (Call timeout of 150ms exceeded); if the model is just slow, raise timeoutMs / chunkTimeoutMs",
    );
  });
});
