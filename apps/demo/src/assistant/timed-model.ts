import type { GenerateOptions, Message, Model, ModelResponse, ModelStreamPart } from "@atrium/spec";

/** A `Model` that adds the time spent in each call to `elapsedMs` (the model's share of a question). */
export class TimedModel implements Model {
  elapsedMs = 0;

  constructor(readonly inner: Model) {}

  get id(): string {
    return this.inner.id;
  }

  async generate(messages: Message[], options?: GenerateOptions): Promise<ModelResponse> {
    const started = performance.now();
    try {
      return await this.inner.generate(messages, options);
    } finally {
      this.elapsedMs += performance.now() - started;
    }
  }

  async *stream(messages: Message[], options?: GenerateOptions): AsyncIterable<ModelStreamPart> {
    // Only the time inside the provider counts, not the time the consumer holds each part.
    const iterator = this.inner.stream(messages, options)[Symbol.asyncIterator]();
    try {
      while (true) {
        const started = performance.now();
        let next: IteratorResult<ModelStreamPart>;
        try {
          next = await iterator.next();
        } finally {
          this.elapsedMs += performance.now() - started;
        }
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await iterator.return?.();
    }
  }
}
