import type { ContentPart, ImagePart, Message, ToolResultMessage } from "@atrium/spec";
import { ConfigError, textOf } from "@atrium/spec";
import type {
  ImagePart as AiImagePart,
  TextPart as AiTextPart,
  ModelMessage,
  ToolResultPart,
  UserModelMessage,
} from "ai";

/**
 * How images returned by tools reach the model. Most chat APIs (OpenAI chat completions and
 * the servers that copy it) accept only text in a tool result, so by default the images follow
 * in a user message right after the tool results; Anthropic takes them inside the result.
 */
export type ToolResultImages = "user-message" | "inline";

/** Spec messages → AI SDK `ModelMessage`s. */
export function toModelMessages(
  messages: Message[],
  toolResultImages: ToolResultImages = "user-message",
): ModelMessage[] {
  const out: ModelMessage[] = [];
  let pendingImages: UserModelMessage["content"] = [];
  const flushImages = () => {
    if (pendingImages.length > 0) out.push({ role: "user", content: pendingImages });
    pendingImages = [];
  };
  for (const message of messages) {
    if (message.role !== "tool") flushImages();
    switch (message.role) {
      case "system":
        out.push({ role: "system", content: message.content });
        break;
      case "user":
        out.push({
          role: "user",
          content: typeof message.content === "string" ? message.content : message.content.map(toUserPart),
        });
        break;
      case "assistant":
        out.push({
          role: "assistant",
          content: [
            ...(message.content ? [{ type: "text" as const, text: message.content }] : []),
            ...(message.toolCalls ?? []).map((call) => ({
              type: "tool-call" as const,
              toolCallId: call.id,
              toolName: call.name,
              input: call.input,
            })),
          ],
        });
        break;
      case "tool": {
        const images = message.content.filter((part): part is ImagePart => part.type === "image");
        const inline = toolResultImages === "inline";
        out.push({ role: "tool", content: [toToolResultPart(message, inline ? [] : images, inline)] });
        if (!inline && images.length > 0) {
          pendingImages.push(
            {
              type: "text",
              text: `Images returned by the tool call ${message.toolName} (${message.toolCallId}):`,
            },
            ...images.map(toImagePart),
          );
        }
        break;
      }
      default:
        throw new ConfigError(
          `Unknown message role ${JSON.stringify((message as { role: unknown }).role)}; use system, user, assistant or tool`,
        );
    }
  }
  flushImages();
  return out;
}

function toToolResultPart(
  message: ToolResultMessage,
  movedImages: ImagePart[],
  inline: boolean,
): ToolResultPart {
  const base = { type: "tool-result" as const, toolCallId: message.toolCallId, toolName: message.toolName };
  const hasImages = message.content.some((part) => part.type === "image");
  if (inline && hasImages) {
    return {
      ...base,
      output: {
        type: "content",
        value: message.content.map((part) =>
          part.type === "text" ? { type: "text" as const, text: part.text } : toImageData(part),
        ),
      },
    };
  }
  let text = textOf(message.content);
  if (movedImages.length > 0) {
    const count = movedImages.length === 1 ? "1 image" : `${movedImages.length} images`;
    text = `${text}${text ? "\n" : ""}(${count} attached in the next message)`;
  }
  return { ...base, output: { type: message.isError ? "error-text" : "text", value: text } };
}

function toUserPart(part: ContentPart): AiTextPart | AiImagePart {
  return part.type === "text" ? { type: "text", text: part.text } : toImagePart(part);
}

/** An image as the AI SDK takes it: bytes, a URL, or base64 with its media type. */
export function toImagePart(part: ImagePart): AiImagePart {
  const { image, mediaType } = part;
  if (image instanceof Uint8Array || image instanceof URL)
    return withMediaType({ type: "image", image }, mediaType);
  const dataUrl = parseDataUrl(image);
  if (dataUrl) return { type: "image", image: dataUrl.base64, mediaType: dataUrl.mediaType };
  if (/^https?:\/\//i.test(image)) return withMediaType({ type: "image", image: new URL(image) }, mediaType);
  return withMediaType({ type: "image", image }, mediaType);
}

function withMediaType(part: AiImagePart, mediaType: string | undefined): AiImagePart {
  return mediaType ? { ...part, mediaType } : part;
}

function toImageData(
  part: ImagePart,
): { type: "image-data"; data: string; mediaType: string } | { type: "image-url"; url: string } {
  const { image } = part;
  if (image instanceof URL) return { type: "image-url", url: image.href };
  if (image instanceof Uint8Array) {
    return {
      type: "image-data",
      data: Buffer.from(image).toString("base64"),
      mediaType: requireMediaType(part),
    };
  }
  const dataUrl = parseDataUrl(image);
  if (dataUrl) return { type: "image-data", data: dataUrl.base64, mediaType: dataUrl.mediaType };
  if (/^https?:\/\//i.test(image)) return { type: "image-url", url: image };
  return { type: "image-data", data: image, mediaType: requireMediaType(part) };
}

function requireMediaType(part: ImagePart): string {
  if (part.mediaType) return part.mediaType;
  throw new ConfigError(
    'An image in a tool result needs a mediaType (e.g. "image/png") when given as bytes or base64',
  );
}

/** `data:<mediaType>;base64,<data>` → its parts; undefined for anything else. */
export function parseDataUrl(value: string): { mediaType: string; base64: string } | undefined {
  const match = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(value);
  return match ? { mediaType: match[1] as string, base64: match[2] as string } : undefined;
}
