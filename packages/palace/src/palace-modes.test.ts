import { stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TestPalaces } from "../test/test-palaces.js";
import { exportPalace } from "./export/export-palace.js";

/** Issue 25: a palace holds memories; what it creates is its owner's alone, whatever the umask. */

const palaces = new TestPalaces();
afterAll(() => palaces.cleanup());

async function mode(path: string): Promise<string> {
  return ((await stat(path)).mode & 0o777).toString(8);
}

describe("files the palace creates", () => {
  it("are 0600 (palace.json, palace.sqlite, -wal, -shm, exports) and its directories 0700", async () => {
    const previous = process.umask(0o022);
    try {
      const dir = join(await palaces.dir(), "home");
      const palace = await palaces.open({}, dir);
      await palace.file([{ wing: "w", room: "r", content: "a private note" }]);
      await palace.setIdentity("I am Dana.");
      const file = join(await palaces.dir(), "export.jsonl");
      await exportPalace(palace, file);
      expect({
        dir: await mode(dir),
        chroma: await mode(join(dir, "chroma")),
        config: await mode(join(dir, "palace.json")),
        sqlite: await mode(join(dir, "palace.sqlite")),
        wal: await mode(join(dir, "palace.sqlite-wal")),
        shm: await mode(join(dir, "palace.sqlite-shm")),
        export: await mode(file),
      }).toEqual({
        dir: "700",
        chroma: "700",
        config: "600",
        sqlite: "600",
        wal: "600",
        shm: "600",
        export: "600",
      });
    } finally {
      process.umask(previous);
    }
  });
});
