import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The version of the package whose module is `moduleUrl` (a CLI passes its `import.meta.url`):
 * the nearest package.json above it with a name and a version, so `src/cli/main.ts`,
 * `dist/cli/main.js` and an installed copy all find their own.
 */
export function packageVersion(moduleUrl: string | URL): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  for (;;) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown; version?: unknown };
      if (typeof manifest.name === "string" && typeof manifest.version === "string") return manifest.version;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json with a version above ${fileURLToPath(moduleUrl)}`);
    dir = parent;
  }
}
