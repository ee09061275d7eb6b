import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's browser (`apt-get install chromium`); ATRIUM_CHROMIUM points at another build. */
export const CHROMIUM_PATH = process.env.ATRIUM_CHROMIUM || "/usr/bin/chromium";

export const CHROMIUM_MISSING = `needs Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set ATRIUM_CHROMIUM)`;

/**
 * Launches Chromium headless, or returns undefined when it is not installed, so the suite can
 * skip with a message. Under CI=true a missing browser is an error instead: CI installs it
 * through `bash .ci/setup.sh test`, and a browser suite that silently skips there tests nothing.
 */
export async function launchChromium(): Promise<Browser | undefined> {
  if (!existsSync(CHROMIUM_PATH)) {
    if (process.env.CI === "true") {
      throw new Error(`${CHROMIUM_MISSING}; "bash .ci/setup.sh test" (what npm test runs first) installs it`);
    }
    return undefined;
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true });
}
