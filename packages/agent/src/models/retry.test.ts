import { AbortError, ConfigError, type Message, ModelError, type ModelStreamPart } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { MODEL_RETRY_BASE_DELAY_MS, MODEL_RETRY_MAX_AFTER_MS, MODEL_RETRY_MAX_DELAY_MS } from "../tuning.js";
import { ProviderError } from "./model-error.js";
import { type RetryEvent, retryDelayMs, withRetries } from "./retry.js";
import { ScriptedModel } from "./scripted-model.js";

const task: Message[] = [{ role: "user", content: "hi" }];
const status = (code: number) =>
  new ProviderError("scripted", `HTTP ${code}`, { status: code, isRetryable: code === 429 || code >= 500 });

function retrying(script: ConstructorParameters<typeof ScriptedModel>[0], maxAttempts = 4) {
  const inner = new ScriptedModel(script, { id: "scripted:test" });
  const events: RetryEvent[] = [];
  const model = withRetries(inner, {
    maxAttempts,
    baseDelayMs: 1,
    maxDelayMs: 4,
    random: () => 0.5,
    onRetry: (event) => events.push(event),
  });
  return { inner, model, events };
}

describe("withRetries", () => {
  it("retries 429 and 5xx until a reply comes, with doubling jittered delays", async () => {
    const { inner, model, events } = retrying([status(429), status(500), status(503), "done"]);
    expect((await model.generate(task)).message.content).toBe("done");
    expect(inner.calls).toHaveLength(4);
    expect(model.id).toBe("scripted:test");
    // base 1, 2, 4 (capped at maxDelayMs 4): half fixed + half * random(0.5)
    expect(events.map(({ attempt, delayMs }) => [attempt, delayMs])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it.each([400, 401, 403, 404, 422])("never retries HTTP %i", async (code) => {
    const { inner, model, events } = retrying([status(code), "unreached"]);
    await expect(model.generate(task)).rejects.toMatchObject({ status: code, isRetryable: false });
    expect(inner.calls).toHaveLength(1);
    expect(events).toEqual([]);
  });

  it("passes configuration errors through untouched", async () => {
    const { model } = retrying([]);
    await expect(model.generate(task)).rejects.toBeInstanceOf(ConfigError);
  });

  it("turns an unknown thrown value into a non-retryable ModelError naming the model", async () => {
    const { inner, model } = retrying([new TypeError("boom"), "unreached"]);
    const error = await model.generate(task).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as Error).message).toBe("scripted:test failed: boom");
    expect(inner.calls).toHaveLength(1);
  });

  it("gives up after maxAttempts and says so, keeping the status", async () => {
    const { inner, model } = retrying([status(502), status(502), status(502)], 3);
    const error = await model.generate(task).catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 502,
      isRetryable: true,
      message: "HTTP 502 (gave up after 3 attempts)",
    });
    expect(inner.calls).toHaveLength(3);
  });

  it("stops waiting at once when aborted during the backoff", async () => {
    const inner = new ScriptedModel([status(500), "unreached"]);
    const controller = new AbortController();
    const model = withRetries(inner, { baseDelayMs: 60_000, onRetry: () => controller.abort() });
    const started = performance.now();
    const error = await model.generate(task, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect((error as Error).message).toBe("The call to scripted was aborted while waiting to retry");
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(inner.calls).toHaveLength(1);
  });

  it("retries a stream that failed before its first part, not one that failed after", async () => {
    const { inner, model, events } = retrying([status(503), "one two"]);
    const parts: ModelStreamPart[] = [];
    for await (const part of model.stream(task)) parts.push(part);
    expect(parts.map((part) => part.type)).toEqual(["text-delta", "text-delta", "finish"]);
    expect(inner.calls).toHaveLength(2);
    expect(events).toHaveLength(1);

    const broken = new ScriptedModel(["unused"]);
    let attempts = 0;
    broken.stream = async function* () {
      attempts++;
      yield { type: "text-delta", text: "partial" };
      throw status(500);
    };
    const seen: string[] = [];
    const run = async () => {
      for await (const part of withRetries(broken, { baseDelayMs: 1 }).stream(task)) {
        if (part.type === "text-delta") seen.push(part.text);
      }
    };
    await expect(run()).rejects.toMatchObject({ status: 500 });
    expect(attempts).toBe(1);
    expect(seen).toEqual(["partial"]);
  });
});

describe("retry options", () => {
  it("rejects nonsense with the option named", () => {
    const model = new ScriptedModel([]);
    expect(() => withRetries(model, { maxAttempts: 0 })).toThrow(
      new ConfigError("retry.maxAttempts must be an integer of at least 1 (1 = no retries); got 0"),
    );
    expect(() => withRetries(model, { baseDelayMs: -1 })).toThrow(
      new ConfigError("retry.baseDelayMs must be a finite number of milliseconds, 0 or more; got -1"),
    );
    expect(() => withRetries(model, { maxRetryAfterMs: Number.NaN })).toThrow(
      "retry.maxRetryAfterMs must be a finite number of milliseconds, 0 or more; got NaN",
    );
  });
});

describe("retryDelayMs", () => {
  it("uses the defaults from tuning.ts with equal jitter", () => {
    expect(retryDelayMs(1, status(500), { random: () => 0 })).toBe(MODEL_RETRY_BASE_DELAY_MS / 2);
    expect(retryDelayMs(1, status(500), { random: () => 0.999999 })).toBe(MODEL_RETRY_BASE_DELAY_MS);
    expect(retryDelayMs(3, status(500), { random: () => 0 })).toBe(2 * MODEL_RETRY_BASE_DELAY_MS);
    expect(retryDelayMs(30, status(500), { random: () => 0 })).toBe(MODEL_RETRY_MAX_DELAY_MS / 2);
  });

  it("prefers the provider's Retry-After, capped", () => {
    const withRetryAfter = (ms: number) =>
      new ProviderError("m", "HTTP 429", { status: 429, isRetryable: true, retryAfterMs: ms });
    expect(retryDelayMs(1, withRetryAfter(2_500))).toBe(2_500);
    expect(retryDelayMs(1, withRetryAfter(0))).toBe(0);
    expect(retryDelayMs(1, withRetryAfter(3_600_000))).toBe(MODEL_RETRY_MAX_AFTER_MS);
    expect(retryDelayMs(1, withRetryAfter(3_600_000), { maxRetryAfterMs: 10 })).toBe(10);
  });
});
