// The design, checked: no import runs up the layers each package's ARCHITECTURE.md draws (and
// every folder is on that drawing), and no 10 lines are written twice across packages (jscpd).
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, type IConfiguration } from "dependency-cruiser";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const require = createRequire(import.meta.url);
const rules = require(join(root, ".ci", "architecture-rules.cjs")) as {
  configFor(root: string): IConfiguration;
  packageLayers(dir: string): string[][] | undefined;
};

/** Violations as "rule: from → to", from a cruise of `paths` under `cwd` with its rules. */
async function violations(cwd: string, paths: string[]): Promise<string[]> {
  const config = rules.configFor(cwd);
  const previous = process.cwd();
  process.chdir(cwd);
  try {
    const result = await cruise(paths, {
      ...config.options,
      ruleSet: { forbidden: config.forbidden },
      validate: true,
      baseDir: cwd,
      outputType: "json",
    });
    const output = typeof result.output === "string" ? JSON.parse(result.output) : result.output;
    return (output.summary.violations as { rule: { name: string }; from: string; to: string }[]).map(
      (violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`,
    );
  } finally {
    process.chdir(previous);
  }
}

function workspacePackages(): string[] {
  return ["packages", "apps"].flatMap((base) =>
    readdirSync(join(root, base), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, base, entry.name, "src")))
      .map((entry) => `${base}/${entry.name}`),
  );
}

describe("the layers of ARCHITECTURE.md", () => {
  it("every package draws its layers, naming each folder and root file of src once", () => {
    const problems: string[] = [];
    for (const pkg of workspacePackages()) {
      const layers = rules.packageLayers(join(root, pkg));
      if (!layers) {
        problems.push(`${pkg}/ARCHITECTURE.md has no "## Layers" list`);
        continue;
      }
      const listed = layers.flat();
      const wildcard = listed.includes("*.ts");
      for (const name of listed) {
        if (listed.indexOf(name) !== listed.lastIndexOf(name))
          problems.push(`${pkg}: ${name} is listed twice`);
        if (name !== "*.ts" && !existsSync(join(root, pkg, "src", name)))
          problems.push(`${pkg}: ${name} is listed but src/${name} does not exist`);
      }
      for (const entry of readdirSync(join(root, pkg, "src"), { withFileTypes: true })) {
        const name = entry.isDirectory() ? `${entry.name}/` : entry.name;
        if (!entry.isDirectory() && (!/\.tsx?$/.test(name) || /\.test\.tsx?$/.test(name))) continue;
        if (!listed.includes(name) && !(wildcard && !entry.isDirectory()))
          problems.push(`${pkg}: src/${name} is on no layer of ARCHITECTURE.md`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("no import runs up a package's layers, and packages import only those below them", async () => {
    expect(await violations(root, ["packages", "apps"])).toEqual([]);
  }, 120_000);

  it("the rules catch an import that runs up (a scratch package whose lowest layer imports its top)", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "atrium-layers-"));
    try {
      const src = join(scratch, "packages", "fake", "src");
      mkdirSync(join(src, "low"), { recursive: true });
      mkdirSync(join(src, "high"), { recursive: true });
      writeFileSync(
        join(scratch, "packages", "fake", "ARCHITECTURE.md"),
        "# fake\n\n## Layers\n\n1. `low/`\n2. `high/`\n3. `index.ts`\n",
      );
      writeFileSync(join(src, "high", "top.ts"), "export const top = 1;\n");
      writeFileSync(
        join(src, "low", "bottom.ts"),
        'import { top } from "../high/top.ts";\nexport const bottom = top;\n',
      );
      writeFileSync(join(src, "index.ts"), 'export { bottom } from "./low/bottom.ts";\n');
      writeFileSync(join(scratch, "tsconfig.base.json"), JSON.stringify({ compilerOptions: {} }));
      expect(await violations(scratch, ["packages"])).toEqual([
        "fake-layer-1: packages/fake/src/low/bottom.ts → packages/fake/src/high/top.ts",
      ]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 60_000);
});

/** Boilerplate that may repeat across packages: build configs and limits tables. */
const CLONE_ALLOW_LIST = [/(^|\/)tsup\.config\.ts$/, /(^|\/)vitest\.config\.ts$/, /(^|\/)limits\.ts$/];

describe("code written once (jscpd 5.3.2)", () => {
  it("no 10 lines repeat across packages, outside build configs and limits tables", () => {
    const out = mkdtempSync(join(tmpdir(), "atrium-jscpd-"));
    try {
      const run = spawnSync(
        join(root, "node_modules", ".bin", "jscpd"),
        [
          ".",
          "--min-lines",
          "10",
          "--format",
          "typescript,javascript",
          "--ignore",
          "**/node_modules/**,**/dist/**,tests/**,tools/**,.ci/**,.tools/**,bench-results/**,**/*.d.ts",
          "--reporters",
          "json",
          "--output",
          out,
          "--silent",
        ],
        { cwd: root, encoding: "utf8" },
      );
      expect(run.status, run.stderr).toBe(0);
      const report = JSON.parse(readFileSync(join(out, "jscpd-report.json"), "utf8")) as {
        duplicates: { lines: number; firstFile: FileSpan; secondFile: FileSpan }[];
      };
      const across = report.duplicates
        .filter((clone) => packageOf(clone.firstFile.name) !== packageOf(clone.secondFile.name))
        .filter(
          (clone) =>
            !CLONE_ALLOW_LIST.some(
              (allowed) => allowed.test(clone.firstFile.name) && allowed.test(clone.secondFile.name),
            ),
        )
        .map(
          (clone) =>
            `${clone.lines} lines: ${clone.firstFile.name}:${clone.firstFile.start} = ${clone.secondFile.name}:${clone.secondFile.start}`,
        );
      expect(across).toEqual([]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});

interface FileSpan {
  name: string;
  start: number;
}

/** "packages/agent" for packages/agent/src/x.ts. */
function packageOf(path: string): string {
  return path.replace(/^\.\//, "").split("/").slice(0, 2).join("/");
}
