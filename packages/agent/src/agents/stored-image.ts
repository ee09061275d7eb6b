import { ConfigError, type ImagePart } from "@atrium/spec";

/**
 * An image as memory keeps it: spec's `ImagePart` in its JSON-safe form, so the shape a user
 * passes in, sees in events and reads in a saved run is one shape. `image` is base64 data (with
 * its `mediaType`) or an http(s) URL the provider fetches (without). Bytes never sit in memory
 * as a `Uint8Array`, so a saved run is plain JSON.
 */
export type StoredImage = { type: "image"; image: string; mediaType?: string };

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;
const HTTP_URL = /^https?:\/\//i;

export function storeImage(part: ImagePart): StoredImage {
  const { image, mediaType } = part;
  if (image instanceof URL) return { type: "image", image: image.href };
  if (image instanceof Uint8Array) {
    return { type: "image", image: Buffer.from(image).toString("base64"), mediaType: requireType(mediaType) };
  }
  const dataUrl = DATA_URL.exec(image);
  if (dataUrl) return { type: "image", image: dataUrl[2]!, mediaType: dataUrl[1]! };
  if (HTTP_URL.test(image)) return { type: "image", image };
  return { type: "image", image, mediaType: requireType(mediaType) };
}

/** True for an image the provider fetches by URL. */
export function isUrlImage(image: StoredImage): boolean {
  return HTTP_URL.test(image.image);
}

/** The decoded size of inline base64 data (0 for a URL the provider fetches). */
export function storedBytes(image: StoredImage): number {
  return isUrlImage(image) ? 0 : Math.floor((image.image.length * 3) / 4);
}

/** What a model call gets: a URL as a `URL`, so no adapter mistakes it for base64. */
export function imagePartOf(stored: StoredImage): ImagePart {
  if (isUrlImage(stored)) return { type: "image", image: new URL(stored.image) };
  return { type: "image", image: stored.image, mediaType: stored.mediaType };
}

/**
 * An image from a run saved before memory used spec's shape (`{ type, data, mediaType }` or
 * `{ type, url }`), read as today's; anything else is returned as it is.
 */
export function upgradeStoredImage(saved: unknown): unknown {
  if (typeof saved !== "object" || saved === null || (saved as { type?: unknown }).type !== "image")
    return saved;
  const old = saved as { data?: unknown; url?: unknown; mediaType?: unknown; image?: unknown };
  if (old.image !== undefined) return saved;
  if (typeof old.url === "string") return { type: "image", image: old.url };
  if (typeof old.data === "string" && typeof old.mediaType === "string") {
    return { type: "image", image: old.data, mediaType: old.mediaType };
  }
  return saved;
}

function requireType(mediaType: string | undefined): string {
  if (!mediaType) {
    throw new ConfigError('an image given as bytes or base64 needs a mediaType such as "image/png"');
  }
  return mediaType;
}
