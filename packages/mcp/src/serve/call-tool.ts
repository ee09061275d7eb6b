import { capText } from "@atrium/kit";
import {
  errorMessage,
  formatIssues,
  type ImagePart,
  isAtriumError,
  isRichToolResult,
  type Tool,
} from "@atrium/spec";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { compileInputSchema, type InputValidator } from "../json-schema-validator.js";
import { DEFAULT_MCP_LIMITS } from "../limits.js";
import type { ServedToolContext } from "./elicit-approval.js";

/**
 * Validates input (the tool's own `validate`, then its advertised JSON Schema through ajv), runs
 * the tool. Clients are shown the JSON Schema, so what it forbids is refused even when the
 * tool's own check would let it through (a zod object silently drops unknown fields).
 */
export function toolRunner(tool: Tool) {
  let compiled: InputValidator | undefined;
  const validate = async (input: unknown) => {
    const own = tool.validate ? await tool.validate(input) : undefined;
    if (own && !own.ok) return own;
    compiled ??= compileInputSchema(tool.inputSchema);
    const advertised = compiled(input);
    return advertised.ok && own ? own : advertised;
  };
  return async (input: unknown, context: ServedToolContext): Promise<CallToolResult> => {
    try {
      const checked = await validate(input ?? {});
      if (!checked.ok)
        return errorResult(`Invalid input for tool "${tool.name}": ${formatIssues(checked.issues)}`);
      const value = await tool.execute(checked.value, context);
      return toCallToolResult(value);
    } catch (error) {
      // A served tool never takes the server down: even fatal errors end only this call.
      const message = errorMessage(error);
      return errorResult(isAtriumError(error) ? message : `Tool "${tool.name}" failed: ${message}`);
    }
  };
}

/** A failed call; its text capped (`maxErrorChars`): a tool can throw a message of any length. */
function errorResult(text: string): CallToolResult {
  return {
    content: [{ type: "text", text: capText(text, DEFAULT_MCP_LIMITS.maxErrorChars) }],
    isError: true,
  };
}

/** Strings stay text; other values become JSON text, plus `structuredContent` for objects. */
export function toCallToolResult(result: unknown): CallToolResult {
  const value = isRichToolResult(result) ? result.value : result;
  const images = isRichToolResult(result) ? (result.images ?? []) : [];
  const content: CallToolResult["content"] = [];
  if (typeof value === "string") content.push({ type: "text", text: value });
  else if (value !== undefined) content.push({ type: "text", text: JSON.stringify(value) ?? String(value) });
  for (const image of images) content.push(imageContent(image));
  const structured =
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
      ? { structuredContent: value as Record<string, unknown> }
      : {};
  return { content, ...structured };
}

function imageContent(image: ImagePart): CallToolResult["content"][number] {
  const { image: data, mediaType } = image;
  if (data instanceof Uint8Array) {
    return { type: "image", data: Buffer.from(data).toString("base64"), mimeType: mediaType ?? "image/png" };
  }
  const text = data instanceof URL ? data.href : data;
  const dataUrl = /^data:([^;,]+)?;base64,(.*)$/s.exec(text);
  if (dataUrl) return { type: "image", data: dataUrl[2]!, mimeType: dataUrl[1] ?? mediaType ?? "image/png" };
  if (/^[a-z][a-z0-9+.-]*:/i.test(text)) {
    return { type: "resource_link", uri: text, name: text.split("/").pop() || text, mimeType: mediaType };
  }
  return { type: "image", data: text, mimeType: mediaType ?? "image/png" };
}
