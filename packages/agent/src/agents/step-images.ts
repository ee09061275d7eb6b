import type { ImagePart } from "@atrium/spec";
import { DEFAULT_AGENT_LOOP_LIMITS } from "../limits.js";

const { maxImageBytes, maxStepImages } = DEFAULT_AGENT_LOOP_LIMITS;

import { sniffImageType } from "./load-images.js";
import { type StoredImage, storedBytes, storeImage } from "./stored-image.js";

export interface StepImages {
  images: StoredImage[];
  /** Says which images were left out and why; empty when all were kept. */
  note: string;
}

/**
 * The images of one action step as memory keeps them. Tools (MCP servers, managed agents) and
 * sandbox code are not trusted to be small or well-formed: beyond `maxStepImages`, an image
 * over `maxImageBytes`, or bytes that are no known image are left out, and the note tells the
 * model, instead of the next request growing without bound or the run failing.
 */
export function keepStepImages(parts: readonly ImagePart[]): StepImages {
  const images: StoredImage[] = [];
  const reasons: string[] = [];
  for (const part of parts.slice(0, maxStepImages)) {
    const typed =
      part.image instanceof Uint8Array && !part.mediaType
        ? { ...part, mediaType: sniffImageType(part.image) }
        : part;
    if (!typed.mediaType && (typed.image instanceof Uint8Array || !isUrlOrDataUrl(typed.image))) {
      reasons.push("an image without a media type");
      continue;
    }
    const stored = storeImage(typed);
    const bytes = storedBytes(stored);
    if (bytes > maxImageBytes) reasons.push(`an image of ${bytes} bytes (the limit is ${maxImageBytes})`);
    else images.push(stored);
  }
  if (parts.length > maxStepImages) {
    reasons.push(`${parts.length - maxStepImages} images beyond the ${maxStepImages} a step may add`);
  }
  const note = reasons.length ? `[Images left out: ${reasons.join("; ")}.]` : "";
  return { images, note };
}

function isUrlOrDataUrl(image: string | URL): boolean {
  return image instanceof URL || /^(https?:\/\/|data:[^;,]+;base64,)/i.test(image);
}
