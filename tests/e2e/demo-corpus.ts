import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const MINTLIFY_CORPUS = fileURLToPath(
  new URL("../../fixtures/corpora/mintlify-docs", import.meta.url),
);

/** A few Mintlify pages (same paths) plus pages of the test's own, in a fresh temporary folder. */
export function corpusCopy(pages: readonly string[], extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "atrium-demo-docs-"));
  for (const page of pages) {
    mkdirSync(dirname(join(dir, page)), { recursive: true });
    cpSync(join(MINTLIFY_CORPUS, page), join(dir, page));
  }
  for (const [page, text] of Object.entries(extra)) {
    mkdirSync(dirname(join(dir, page)), { recursive: true });
    writeFileSync(join(dir, page), text);
  }
  return dir;
}

export function removeDirs(...dirs: (string | undefined)[]): void {
  for (const dir of dirs) if (dir) rmSync(dir, { recursive: true, force: true });
}

/** Pages from several sections, so a question has pages to choose among. */
export const SOME_PAGES = [
  "index.mdx",
  "quickstart.mdx",
  "customize/custom-domain.mdx",
  "customize/fonts.mdx",
  "cli/preview.mdx",
  "cli/install.mdx",
  "create/redirects.mdx",
  "deploy/ci.mdx",
  "organize/hidden-pages.mdx",
];
