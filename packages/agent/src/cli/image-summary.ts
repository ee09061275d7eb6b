import type { ImagePart } from "@atrium/spec";

/**
 * One line naming the images sent with a task, for the step trace: how many, and each one's
 * media type and size (or its URL, which the provider fetches), so a user sees what the model
 * was given without reading token counts. Memory keeps inline images as base64, URLs as URLs.
 */
export function describeImages(images: readonly ImagePart[]): string {
  const each = images.map((part) => {
    const { image, mediaType } = part;
    if (image instanceof URL) return image.href;
    const bytes = image instanceof Uint8Array ? image.byteLength : base64Bytes(image);
    return `${mediaType ?? "image"} ${formatBytes(bytes)}`;
  });
  return `${images.length} image${images.length === 1 ? "" : "s"} sent with the task: ${each.join(", ")}`;
}

function base64Bytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
