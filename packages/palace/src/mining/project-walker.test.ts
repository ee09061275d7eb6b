import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { AbortError } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { looksBinary, walkProject } from "./project-walker.js";

let root: string;

async function put(path: string, content: string | Uint8Array = "x\n"): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), content);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "palace-walk-"));
  await put(".gitignore", "*.log\nbuild/\n!keep.log\n");
  await put("README.md");
  await put("debug.log");
  await put("keep.log");
  await put("build/out.js");
  await put("src/build.ts");
  await put("a/.gitignore", "secret.txt\ngenerated/\n");
  await put("a/secret.txt");
  await put("a/generated/x.ts");
  await put("a/b/.gitignore", "!secret.txt\n");
  await put("a/b/secret.txt");
  await put("a/b/notes.md");
  await put("node_modules/pkg/index.js");
  await put("a/node_modules/pkg/index.js");
  await put(".git/config");
  await put("logo.png", new Uint8Array([137, 80, 78, 71]));
  await put("pnpm-lock.yaml");
  await put("dist.min.js");
  await put("big.txt", "y".repeat(200));
  await symlink(root, join(root, "loop"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("walkProject", () => {
  it("applies every level's .gitignore (deeper rules win), skips the usual noise, follows no link", async () => {
    const entries: string[] = [];
    for await (const entry of walkProject(root, { maxFileBytes: 100 })) {
      entries.push(entry.type === "file" ? entry.file.path : `${entry.path} (${entry.reason})`);
    }
    expect(entries).toEqual([
      ".gitignore",
      "README.md",
      "big.txt (too-large)",
      "dist.min.js (generated)",
      "keep.log",
      "logo.png (binary)",
      "pnpm-lock.yaml (lockfile)",
      "a/.gitignore",
      "a/b/.gitignore",
      "a/b/notes.md",
      "a/b/secret.txt",
      "src/build.ts",
    ]);
  });

  it("gives each file's size and absolute path", async () => {
    for await (const entry of walkProject(root, { maxFileBytes: 1000 })) {
      if (entry.type === "file" && entry.file.path === "big.txt") {
        expect(entry.file.size).toBe(200);
        expect(entry.file.absolutePath).toBe(join(root, "big.txt"));
      }
    }
  });

  it("stops with spec's AbortError when aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(async () => {
      for await (const _ of walkProject(root, { maxFileBytes: 100, signal: controller.signal })) {
        // walking
      }
    }).rejects.toBeInstanceOf(AbortError);
  });

  it("fails on a root that does not exist", async () => {
    await expect(async () => {
      for await (const _ of walkProject(join(root, "missing"), { maxFileBytes: 100 })) {
        // walking
      }
    }).rejects.toThrow("ENOENT");
  });
});

describe("looksBinary", () => {
  it("takes a NUL byte in the first 8000 bytes as binary, as git does", () => {
    expect(looksBinary(new TextEncoder().encode("plain text ✓"))).toBe(false);
    expect(looksBinary(new Uint8Array([65, 0, 66]))).toBe(true);
    const lateNul = new Uint8Array(9000).fill(65);
    lateNul[8500] = 0;
    expect(looksBinary(lateNul)).toBe(false);
  });
});
