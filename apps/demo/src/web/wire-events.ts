import { type ImagePart, rethrowIfFatal } from "@atrium/spec";
import type { AssistantEvent } from "../assistant/assistant-events.js";

/** What the browser learns about an image that went to the model: never the bytes again. */
export interface ImageSummary {
  mediaType: string;
  bytes: number;
}

/**
 * An assistant event as the web UI receives it over SSE. Images become summaries (the browser
 * already has them, and a 5 MB base64 echo would only slow the stream) and a tool's output is
 * JSON cut to the trace's length, so one event stays small whatever a tool returned.
 */
export type WireEvent = Record<string, unknown> & { type: string };

export function toWireEvent(event: AssistantEvent, maxChars: number): WireEvent {
  switch (event.type) {
    case "run-start":
    case "observation": {
      const { images, ...rest } = event;
      return images?.length ? { ...rest, images: images.map(summarizeImage) } : rest;
    }
    case "tool-result": {
      const text = jsonText(event.output);
      return { ...event, output: cut(text, maxChars), outputChars: text.length };
    }
    case "tool-call":
    case "approval-requested":
      return { ...event, input: cut(jsonText(event.input), maxChars) };
    default:
      return event as WireEvent;
  }
}

export function summarizeImage(image: ImagePart): ImageSummary {
  const { image: data, mediaType = "" } = image;
  if (data instanceof Uint8Array) return { mediaType, bytes: data.byteLength };
  if (data instanceof URL) return { mediaType, bytes: 0 };
  // The agent keeps images as base64 (no data: prefix): the decoded size, padding excluded.
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return { mediaType, bytes: Math.floor((data.length * 3) / 4) - padding };
}

function jsonText(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch (error) {
    rethrowIfFatal(error);
    // A cyclic or BigInt value cannot be JSON; the trace shows what String() makes of it.
    return String(value);
  }
}

function cut(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}
