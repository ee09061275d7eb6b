// Issue 26, item 6: the root README's line that writes the scripted model's replies must work in
// the shells users type it into. `echo '…\n…'` did so only in bash: zsh (macOS's default) and dash
// turn `\n` into real newlines, and the CLI rejects the file. This takes that exact line from
// README.md, runs it in bash, dash and zsh, checks the file, then runs the README's next line
// (the CLI, from this checkout's sources) on it and checks it prints 42.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const README = readFileSync(join(ROOT, "README.md"), "utf8").split("\n");
const CLI_MAIN = join(ROOT, "packages", "agent", "src", "cli", "main.ts");
const TSX = pathToFileURL(createRequire(join(ROOT, "packages", "agent", "package.json")).resolve("tsx")).href;
const CI = process.env.CI === "true";

/** The one README line that writes replies.json, and the `npx atrium-agent` line after it. */
function readmeLines(): { write: string; run: string } {
  const at = README.findIndex((line) => line.includes("> replies.json"));
  expect(at, "README.md has a line that writes replies.json").toBeGreaterThanOrEqual(0);
  expect(README.filter((line) => line.includes("> replies.json"))).toHaveLength(1);
  const run = README[at + 1] as string;
  expect(run).toMatch(/^npx atrium-agent run .* --model scripted:replies\.json/);
  return { write: README[at] as string, run };
}

const SHELLS = ["bash", "dash", "zsh"].map((name) => ({
  name,
  path: ["/usr/bin", "/bin"].map((dir) => join(dir, name)).find((path) => existsSync(path)),
}));

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("the root README's replies.json line", () => {
  for (const shell of SHELLS) {
    it(`writes the scripted replies in ${shell.name}, and the CLI prints 42 with them`, (context) => {
      if (!shell.path) {
        if (CI) throw new Error(`${shell.name} is missing under CI=true; npm test's set-up installs it`);
        context.skip(`${shell.name} is not installed (sudo apt-get install zsh)`);
      }
      const { write, run } = readmeLines();
      const dir = mkdtempSync(join(tmpdir(), `atrium-readme-${shell.name}-`));
      dirs.push(dir);
      // zsh -f: no user start-up files, as in a fresh terminal's defaults.
      const flags = shell.name === "zsh" ? ["-f", "-c"] : ["-c"];
      const written = spawnSync(shell.path as string, [...flags, write], { cwd: dir, encoding: "utf8" });
      expect(written.stderr).toBe("");
      expect(written.status).toBe(0);
      const text = readFileSync(join(dir, "replies.json"), "utf8");
      expect(text).toBe('["```js\\nfinal_answer(6 * 7)\\n```"]\n');
      expect(JSON.parse(text)).toEqual(["```js\nfinal_answer(6 * 7)\n```"]);

      // The README's next line, with `npx atrium-agent` (the published bin) as this checkout's source.
      const cli = `${JSON.stringify(process.execPath)} --conditions=@atrium/source --import ${TSX} ${JSON.stringify(CLI_MAIN)}`;
      const answered = spawnSync(shell.path as string, [...flags, run.replace(/^npx atrium-agent/, cli)], {
        cwd: dir,
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(answered.stdout).toBe("42\n");
      expect(answered.status).toBe(0);
    }, 90_000);
  }
});
