import { capText as capErrorText } from "@atrium/kit";
import { type ImagePart, type RichToolResult, richToolResult, ToolError } from "@atrium/spec";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_MCP_LIMITS } from "../limits.js";

/**
 * An MCP tool result as an Atrium tool result: `structuredContent` when the server gives it
 * (code in the sandbox gets an object, not JSON text), else the text parts joined; images ride
 * along as a `RichToolResult`; `isError` becomes a `ToolError` carrying the server's words.
 */
export function toToolResult(toolName: string, result: CallToolResult): unknown | RichToolResult {
  const texts: string[] = [];
  const images: ImagePart[] = [];
  let imageChars = 0;
  for (const part of result.content ?? []) {
    switch (part.type) {
      case "text":
        texts.push(part.text);
        break;
      case "image":
        if (imageChars + part.data.length > DEFAULT_MCP_LIMITS.maxResultImageChars) {
          texts.push(
            `[image dropped: the result's images exceed ${DEFAULT_MCP_LIMITS.maxResultImageChars} base64 characters]`,
          );
        } else {
          imageChars += part.data.length;
          images.push({ type: "image", image: part.data, mediaType: part.mimeType });
        }
        break;
      case "audio":
        texts.push(`[audio ${part.mimeType}, ${part.data.length} base64 characters, not shown]`);
        break;
      case "resource":
        texts.push(
          "text" in part.resource
            ? part.resource.text
            : `[binary resource ${part.resource.uri}${part.resource.mimeType ? ` (${part.resource.mimeType})` : ""}]`,
        );
        break;
      case "resource_link":
        texts.push(`[resource ${part.name}: ${part.uri}]`);
        break;
    }
  }
  if (result.isError) {
    // An error's text is bounded like every error crossing MCP (maxErrorChars), not like a result.
    const message = capErrorText(texts.join("\n"), DEFAULT_MCP_LIMITS.maxErrorChars);
    throw new ToolError(toolName, message || `tool "${toolName}" failed without a message`);
  }
  const text = capText(texts.join("\n"));
  const value = boundedValue(result.structuredContent, text);
  return images.length ? richToolResult(value, images) : value;
}

/**
 * `structuredContent` as an object when it fits the text limit; a bigger one would reach the
 * model whole, so the (cut) text parts stand in for it — the spec has servers put the same JSON
 * there — or, without text, its JSON cut to the limit.
 */
function boundedValue(structured: Record<string, unknown> | undefined, text: string): unknown {
  if (structured === undefined) return text;
  const json = JSON.stringify(structured);
  if (json.length <= DEFAULT_MCP_LIMITS.maxResultTextChars) return structured;
  return text || capText(json);
}

function capText(text: string): string {
  if (text.length <= DEFAULT_MCP_LIMITS.maxResultTextChars) return text;
  return `${text.slice(0, DEFAULT_MCP_LIMITS.maxResultTextChars)}\n[… ${text.length - DEFAULT_MCP_LIMITS.maxResultTextChars} more characters cut]`;
}
