import { packageText } from "@atrium/kit";

/** The file name the harness runs under (what tracebacks and the audit hook see). */
export const HARNESS_FILENAME = "<atrium-harness>";

/**
 * The Python half of the sandbox (`harness.py`, security-critical: see its header), read from
 * the package: beside this file in the sources, in `dist/harness/` in a build (tsup.config.ts
 * copies it there; `src/` ships too). The host reads it and hands it to each sandbox as it boots,
 * so the sandbox itself needs no access to the package.
 */
export function pythonHarness(): string {
  return packageText({
    from: import.meta.url,
    source: "./harness.py",
    built: ["./harness/harness.py", "../harness/harness.py"],
    owner: "PythonExecutor",
  });
}
