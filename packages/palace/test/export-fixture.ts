import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The text of a file under test/fixtures/exports (for the format tests). */
export function exportFixture(path: string): string {
  return readFileSync(fileURLToPath(new URL(`./fixtures/exports/${path}`, import.meta.url)), "utf8");
}
