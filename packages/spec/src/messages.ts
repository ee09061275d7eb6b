/**
 * Messages exchanged with a model. Close to the AI SDK's shapes so adapters stay thin, but owned
 * here so no package depends on a provider library to speak them.
 */
export interface TextPart {
  type: "text";
  text: string;
}

/**
 * An image: raw bytes, a URL, or a base64 string / data URL. `mediaType` ("image/png", ...) is
 * required for bytes and base64 so providers can label them.
 */
export interface ImagePart {
  type: "image";
  image: Uint8Array | URL | string;
  mediaType?: string;
}

export type ContentPart = TextPart | ImagePart;

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

export interface SystemMessage {
  role: "system";
  content: string;
}

export interface UserMessage {
  role: "user";
  content: string | ContentPart[];
}

export interface AssistantMessage {
  role: "assistant";
  content: string;
  toolCalls?: ToolCall[];
}

export interface ToolResultMessage {
  role: "tool";
  toolCallId: string;
  toolName: string;
  content: ContentPart[];
  isError?: boolean;
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage;

export function textOf(content: string | ContentPart[]): string {
  if (typeof content === "string") return content;
  return content
    .filter((part): part is TextPart => part.type === "text")
    .map((part) => part.text)
    .join("");
}

export function imagesOf(content: string | ContentPart[]): ImagePart[] {
  if (typeof content === "string") return [];
  return content.filter((part): part is ImagePart => part.type === "image");
}
