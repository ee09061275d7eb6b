import { ConfigError, type ImagePart } from "@atrium/spec";

/**
 * An image in a JSON-safe form, as memory keeps it: a URL the provider fetches, or base64 data
 * with its media type. Bytes never sit in memory as a `Uint8Array`, so a saved run is plain JSON.
 */
export type StoredImage = { type: "image"; url: string } | { type: "image"; data: string; mediaType: string };

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

export function storeImage(part: ImagePart): StoredImage {
  const { image, mediaType } = part;
  if (image instanceof URL) return { type: "image", url: image.href };
  if (image instanceof Uint8Array) {
    return { type: "image", data: Buffer.from(image).toString("base64"), mediaType: requireType(mediaType) };
  }
  const dataUrl = DATA_URL.exec(image);
  if (dataUrl) return { type: "image", data: dataUrl[2]!, mediaType: dataUrl[1]! };
  if (/^https?:\/\//i.test(image)) return { type: "image", url: image };
  return { type: "image", data: image, mediaType: requireType(mediaType) };
}

/** The decoded size of inline base64 data (0 for a URL the provider fetches). */
export function storedBytes(image: StoredImage): number {
  return "data" in image ? Math.floor((image.data.length * 3) / 4) : 0;
}

export function imagePartOf(stored: StoredImage): ImagePart {
  if ("url" in stored) return { type: "image", image: new URL(stored.url) };
  return { type: "image", image: stored.data, mediaType: stored.mediaType };
}

function requireType(mediaType: string | undefined): string {
  if (!mediaType) {
    throw new ConfigError('an image given as bytes or base64 needs a mediaType such as "image/png"');
  }
  return mediaType;
}
