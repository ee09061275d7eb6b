import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script of .ci/, without type declarations
import { checkTarball, runtimeReferences } from "../../.ci/runtime-files.mjs";

const dir = mkdtempSync(join(tmpdir(), "atrium-runtime-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A tarball laid out as `pnpm pack` lays one out (everything under package/). */
function tarball(name: string, files: Record<string, string>): string {
  const root = join(dir, name);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, "package", path)), { recursive: true });
    writeFileSync(join(root, "package", path), content);
  }
  const file = join(dir, `${name}.tgz`);
  execFileSync("tar", ["-czf", file, "-C", root, "package"]);
  return file;
}

describe("runtime files of built code (.ci/runtime-files.mjs)", () => {
  it("finds new URL(…, import.meta.url), a name bound to it and import.meta.resolve; an array is one choice; .ts is skipped", () => {
    const code = [
      'const script = fileURLToPath(new URL("./relay.cjs", import.meta.url));',
      "const here = import.meta.url;",
      'const worker = [new URL("./worker.js", here), new URL("../worker.js", here)];',
      'const fromSource = new URL("./worker.ts", here);',
      'const asset = import.meta.resolve("../assets/agent.c");',
      'const remote = new URL("/api", baseUrl);',
    ].join("\n");
    expect(runtimeReferences(code)).toEqual([
      ["./worker.js", "../worker.js"],
      ["./relay.cjs"],
      ["../assets/agent.c"],
    ]);
  });

  it("names the file a tarball lacks, the built file and the source that asked for it", () => {
    const source = 'export const relay = new URL("./relay.cjs", import.meta.url);\n';
    const files = {
      "package.json": JSON.stringify({ name: "@atrium/x", version: "0.0.0" }),
      "dist/chunk-A.js": source,
      "dist/chunk-A.js.map": JSON.stringify({
        version: 3,
        sources: ["../src/net/relay.ts"],
        sourcesContent: [source],
      }),
    };
    expect(checkTarball(tarball("without", files))).toEqual({
      name: "@atrium/x",
      problems: [
        '@atrium/x: dist/chunk-A.js (from src/net/relay.ts) reads "./relay.cjs" at run time, but the tarball has no dist/relay.cjs',
      ],
    });
    expect(checkTarball(tarball("with", { ...files, "dist/relay.cjs": "" })).problems).toEqual([]);
  });
});
