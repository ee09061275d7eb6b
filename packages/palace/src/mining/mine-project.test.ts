import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryDrawerSink } from "./memory-drawer-sink.js";
import { mine } from "./mine.js";

const REPOSITORY = fileURLToPath(new URL("../../../..", import.meta.url));
let project: string;
const MTIME = new Date("2025-03-04T05:06:07.000Z");

async function put(path: string, content: string | Uint8Array): Promise<void> {
  await mkdir(dirname(join(project, path)), { recursive: true });
  await writeFile(join(project, path), content);
  await utimes(join(project, path), MTIME, MTIME);
}

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), "palace-project-"));
  await put(".gitignore", "dist/\n");
  await put("README.md", "# Shop\n\nSells tea.\n\n## Install\n\nRun `npm i`.\n");
  await put(
    "src/billing/invoice.ts",
    "export function total(lines: number[]): number {\n  return lines.reduce((a, b) => a + b, 0);\n}\n",
  );
  await put("src/billing/refund.ts", "export const REFUND_DAYS = 30;\n");
  await put("dist/bundle.js", "ignored();\n");
  await put("assets/photo.dat", new Uint8Array([1, 0, 2, 3]));
});

afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

describe("mine (project)", () => {
  it("files each file in folder or topic rooms, in halls by kind, with line spans", async () => {
    const sink = new MemoryDrawerSink();
    const result = await mine(sink, project, { mode: "project", wing: "shop" });
    expect(result).toEqual({
      sources: 4,
      added: 5,
      kept: 0,
      removed: 0,
      sourcesRemoved: 0,
      skipped: 0,
      excluded: 1,
      errors: [],
    });
    const timestamp = MTIME.toISOString();
    expect(sink.drawers().map(({ id: _id, ...drawer }) => drawer)).toEqual([
      {
        content: "dist/",
        wing: "shop",
        room: "config",
        hall: "config",
        source: "project:shop/.gitignore",
        position: 0,
        timestamp,
        metadata: { file: ".gitignore", lineStart: 1, lineEnd: 1 },
      },
      {
        content: "# Shop\n\nSells tea.",
        wing: "shop",
        room: "docs",
        hall: "docs",
        source: "project:shop/README.md",
        position: 0,
        timestamp,
        metadata: { file: "README.md", lineStart: 1, lineEnd: 3, heading: "Shop" },
      },
      {
        content: "## Install\n\nRun `npm i`.",
        wing: "shop",
        room: "docs",
        hall: "docs",
        source: "project:shop/README.md",
        position: 1,
        timestamp,
        metadata: { file: "README.md", lineStart: 5, lineEnd: 7, heading: "Shop › Install" },
      },
      {
        content:
          "export function total(lines: number[]): number {\n  return lines.reduce((a, b) => a + b, 0);\n}",
        wing: "shop",
        room: "billing",
        hall: "code",
        source: "project:shop/src/billing/invoice.ts",
        position: 0,
        timestamp,
        metadata: { file: "src/billing/invoice.ts", lineStart: 1, lineEnd: 3 },
      },
      {
        content: "export const REFUND_DAYS = 30;",
        wing: "shop",
        room: "billing",
        hall: "code",
        source: "project:shop/src/billing/refund.ts",
        position: 0,
        timestamp,
        metadata: { file: "src/billing/refund.ts", lineStart: 1, lineEnd: 1 },
      },
    ]);
  });

  it("re-files only the file that changed", async () => {
    const sink = new MemoryDrawerSink();
    await mine(sink, project, { mode: "project", wing: "shop" });
    await put("src/billing/refund.ts", "export const REFUND_DAYS = 14;\n");
    expect(await mine(sink, project, { mode: "project", wing: "shop" })).toEqual({
      sources: 4,
      added: 1,
      kept: 0,
      removed: 1,
      sourcesRemoved: 0,
      skipped: 3,
      excluded: 1,
      errors: [],
    });
  });

  it("spreads this repository over rooms: none holds more than 30% of the drawers", async () => {
    const sink = new MemoryDrawerSink();
    const result = await mine(sink, REPOSITORY, { mode: "project", wing: "atrium" });
    expect(result.errors).toEqual([]);
    const drawers = sink.drawers();
    expect(drawers.length).toBeGreaterThan(1_000);
    const perRoom = new Map<string, number>();
    for (const drawer of drawers) perRoom.set(drawer.room, (perRoom.get(drawer.room) ?? 0) + 1);
    const [largestRoom, largest] = [...perRoom].sort((left, right) => right[1] - left[1])[0]!;
    expect(largest / drawers.length, `room ${largestRoom}`).toBeLessThanOrEqual(0.3);
    expect(perRoom.size).toBeGreaterThanOrEqual(10);
    // .gitignore'd and always-skipped folders never reach the palace.
    expect(
      drawers.some((drawer) => /(^|\/)(node_modules|\.git|\.tools)\//.test(String(drawer.metadata?.file))),
    ).toBe(false);
  });
});
