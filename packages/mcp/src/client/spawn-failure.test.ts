import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { describeSpawnFailure } from "./spawn-failure.js";

const dir = mkdtempSync(join(tmpdir(), "atrium-spawn-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const failure = (code: string) => Object.assign(new Error(`spawn x ${code}`), { code });

describe("describeSpawnFailure", () => {
  it("says command not found for ENOENT, and for EACCES when no PATH directory holds the name", () => {
    const notFound = 'command not found: "tool" (is it installed and on PATH?)';
    expect(describeSpawnFailure("tool", failure("ENOENT"), undefined, dir)).toBe(notFound);
    // An inherited PATH naming a directory this user cannot search gives EACCES for a missing command.
    expect(
      describeSpawnFailure("tool", failure("EACCES"), undefined, [join(dir, "none"), dir].join(delimiter)),
    ).toBe(notFound);
    expect(describeSpawnFailure("tool", failure("ENOENT"), "/srv")).toBe(
      'command not found: "tool" (is it installed and on PATH, or relative to /srv?)',
    );
  });

  it("names the file that is there but not executable", () => {
    mkdirSync(join(dir, "bin"));
    writeFileSync(join(dir, "bin", "tool"), "#!/bin/sh\n");
    chmodSync(join(dir, "bin", "tool"), 0o644);
    expect(describeSpawnFailure("tool", failure("EACCES"), undefined, join(dir, "bin"))).toBe(
      `cannot start "tool": ${join(dir, "bin", "tool")} is not executable by this user`,
    );
    expect(describeSpawnFailure("./tool", failure("EACCES"), undefined, "")).toBe(
      'cannot start "./tool": spawn x EACCES',
    );
  });
});
