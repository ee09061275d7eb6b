import { readFile, stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { ConfigError, type ImagePart } from "@atrium/spec";
import { DEFAULT_AGENT_LOOP_LIMITS } from "../limits.js";

const { maxImageBytes, maxTaskImages } = DEFAULT_AGENT_LOOP_LIMITS;

import { type StoredImage, storedBytes, storeImage } from "./stored-image.js";

/** An image for `run(task, { images })`: a file path, an http(s)/data/file URL, bytes, or a part. */
export type ImageInput = string | URL | Uint8Array | ImagePart;

const SIGNATURES: { mediaType: string; matches: (bytes: Uint8Array) => boolean }[] = [
  { mediaType: "image/png", matches: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { mediaType: "image/jpeg", matches: (b) => startsWith(b, [0xff, 0xd8, 0xff]) },
  { mediaType: "image/gif", matches: (b) => startsWith(b, [0x47, 0x49, 0x46, 0x38]) },
  {
    mediaType: "image/webp",
    matches: (b) =>
      startsWith(b, [0x52, 0x49, 0x46, 0x46]) && startsWith(b.subarray(8), [0x57, 0x45, 0x42, 0x50]),
  },
];

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((byte, i) => bytes[i] === byte);
}

/** The media type of image bytes from their magic number, or undefined if not PNG/JPEG/GIF/WebP. */
export function sniffImageType(bytes: Uint8Array): string | undefined {
  return SIGNATURES.find((signature) => signature.matches(bytes))?.mediaType;
}

/** Turns what the caller gave into JSON-safe images, checking size and type up front. */
export async function loadImages(inputs: readonly ImageInput[] = []): Promise<StoredImage[]> {
  if (!Array.isArray(inputs))
    throw new ConfigError("images must be an array of paths, URLs, bytes or image parts");
  if (inputs.length > maxTaskImages) {
    throw new ConfigError(`${inputs.length} images given; at most ${maxTaskImages} fit one task`);
  }
  return Promise.all(inputs.map(loadImage));
}

async function loadImage(input: ImageInput): Promise<StoredImage> {
  if (input instanceof Uint8Array) return fromBytes(input, "image bytes");
  if (input instanceof URL) return fromUrl(input);
  if (typeof input === "object" && input !== null && (input as ImagePart).type === "image") {
    const part = input as ImagePart;
    if (part.image instanceof Uint8Array && !part.mediaType) return fromBytes(part.image, "image part");
    return withinSize(storeImage(part), "image part");
  }
  if (typeof input !== "string" || input === "") {
    throw new ConfigError(
      `an image must be a path, URL, Uint8Array or { type: "image", ... }, got ${typeof input}`,
    );
  }
  if (/^(https?|data|file):/i.test(input)) return fromUrl(new URL(input));
  return fromFile(input);
}

async function fromUrl(url: URL): Promise<StoredImage> {
  if (url.protocol === "file:") return fromFile(fileURLToPath(url));
  if (url.protocol === "data:")
    return withinSize(storeImage({ type: "image", image: url.href }), "image data URL");
  if (url.protocol === "http:" || url.protocol === "https:") return { type: "image", image: url.href };
  throw new ConfigError(`image URL ${url.href}: only http(s), data and file URLs are supported`);
}

async function fromFile(path: string): Promise<StoredImage> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new ConfigError(`image ${path}: ${error.code === "ENOENT" ? "no such file" : error.message}`, {
      cause: error,
    });
  });
  if (!info.isFile()) throw new ConfigError(`image ${path}: not a file`);
  if (info.size > maxImageBytes) {
    throw new ConfigError(
      `image ${path} is ${info.size} bytes; the limit is ${maxImageBytes} (maxImageBytes)`,
    );
  }
  return fromBytes(await readFile(path), `image ${path}`);
}

/** Base64 given inline (a part or a data URL) is held to the same size limit as files. */
function withinSize(image: StoredImage, what: string): StoredImage {
  const bytes = storedBytes(image);
  if (bytes > maxImageBytes) {
    throw new ConfigError(`${what} is about ${bytes} bytes; the limit is ${maxImageBytes} (maxImageBytes)`);
  }
  return image;
}

function fromBytes(bytes: Uint8Array, what: string): StoredImage {
  if (bytes.byteLength > maxImageBytes) {
    throw new ConfigError(
      `${what} is ${bytes.byteLength} bytes; the limit is ${maxImageBytes} (maxImageBytes)`,
    );
  }
  const mediaType = sniffImageType(bytes);
  if (!mediaType) throw new ConfigError(`${what}: not a PNG, JPEG, GIF or WebP image`);
  return { type: "image", image: Buffer.from(bytes).toString("base64"), mediaType };
}
