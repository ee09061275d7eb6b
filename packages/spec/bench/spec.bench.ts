/**
 * spec has no hot paths of its own; its one figure is the cost of the error helpers every
 * package calls in catch blocks, against constructing a plain Error.
 */
import { compared, sampleMs, writeBenchResults } from "@atrium/bench";
import { rethrowIfFatal, ToolError } from "../src/index.js";

const N = 10_000;
const atrium = await sampleMs(() => {
  for (let i = 0; i < N; i++) {
    try {
      throw new ToolError("t", "failed");
    } catch (error) {
      rethrowIfFatal(error);
    }
  }
});
const plain = await sampleMs(() => {
  for (let i = 0; i < N; i++) {
    try {
      throw new Error("failed");
    } catch {}
  }
});

writeBenchResults("spec", [
  compared("errors.throw_catch_us", (atrium / N) * 1000, "µs", "plain Error throw/catch", (plain / N) * 1000),
]);
