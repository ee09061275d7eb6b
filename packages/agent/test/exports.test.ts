// A user of @atrium/agent gets what they need from spec through the one import.
import * as spec from "@atrium/spec";
import { describe, expect, it } from "vitest";
import * as agent from "../src/index.js";

describe("@atrium/agent re-exports from spec", () => {
  it("the errors, the image and message helpers, and the tool result helpers, as the same values", () => {
    const names = [
      "AbortError",
      "AtriumError",
      "ClosedError",
      "ConfigError",
      "LimitError",
      "ModelError",
      "ParseError",
      "SecurityError",
      "ToolError",
      "ValidationError",
      "errorMessage",
      "isAtriumError",
      "isFatalError",
      "rethrowIfFatal",
      "serializeError",
      "imagesOf",
      "textOf",
      "richToolResult",
      "isRichToolResult",
    ] as const;
    const fromSpec: Record<string, unknown> = { ...spec };
    const fromAgent: Record<string, unknown> = { ...agent };
    const missing = names.filter(
      (name) => fromSpec[name] === undefined || fromAgent[name] !== fromSpec[name],
    );
    expect(missing).toEqual([]);
  });

  it("imagesOf picks the image parts of a message", () => {
    const image = { type: "image" as const, image: "iVBORw0KGgo=", mediaType: "image/png" };
    expect(agent.imagesOf([{ type: "text", text: "look" }, image])).toEqual([image]);
  });
});
