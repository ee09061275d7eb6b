import { readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@atrium/spec";

/** The page's files, served as they are: plain HTML, CSS and ES modules, no build step. */
export const WEB_ASSETS_DIR = fileURLToPath(new URL("../../web/", import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
};

export interface StaticAsset {
  body: string;
  contentType: string;
}

/**
 * Reads the folder's files once, at start. Only names listed here are ever served, so no request
 * path reaches the filesystem (no traversal to guard against).
 */
export function loadStaticAssets(dir: string = WEB_ASSETS_DIR): Map<string, StaticAsset> {
  const assets = new Map<string, StaticAsset>();
  for (const name of readdirSync(dir)) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (contentType) assets.set(name, { body: readFileSync(join(dir, name), "utf8"), contentType });
  }
  if (!assets.has("index.html")) {
    throw new ConfigError(`the web UI's files are missing: no index.html in ${dir}; restore apps/demo/web/`);
  }
  return assets;
}
