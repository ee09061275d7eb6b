import { describe, expect, it } from "vitest";
import type { MineEvent, MineResult } from "./mine-types.js";
import { progressBar, summary } from "./progress-bar.js";

const result: MineResult = {
  sources: 4,
  added: 7,
  kept: 1,
  removed: 0,
  sourcesRemoved: 0,
  skipped: 2,
  excluded: 1,
  errors: [],
};

function run(events: MineEvent[], stream: { isTTY?: boolean; columns?: number }, quiet = false) {
  let output = "";
  let clock = 0;
  const draw = progressBar({
    stream: { ...stream, write: (text: string | Uint8Array) => (output += String(text)) },
    quiet,
    now: () => (clock += 50),
  });
  for (const event of events) draw(event);
  return output;
}

const events: MineEvent[] = [
  { type: "start", mode: "project", path: "/p", files: 4 },
  { type: "source", key: "w/a", file: "a", status: "added", added: 3, kept: 0, removed: 0 },
  { type: "file", file: "a", done: 1, files: 4 },
  { type: "error", error: { file: "b", position: "line 2, column 1", message: "invalid JSON" } },
  { type: "file", file: "b", done: 2, files: 4 },
  { type: "source", key: "w/c", file: "c", status: "unchanged", added: 0, kept: 0, removed: 0 },
  { type: "file", file: "c", done: 3, files: 4 },
  { type: "file", file: "d", done: 4, files: 4 },
  { type: "done", result },
];

const SUMMARY = "mined: 4 sources, 7 drawers added, 1 kept, 0 removed, 2 unchanged, 1 files left out";

describe("progressBar", () => {
  it("off a terminal: what is mined, a line each tenth of the way, the errors as they come and the summary", () => {
    expect(run(events, {})).toBe(
      [
        "mining 4 files from /p (project)",
        " 25% 1/4 files  3 drawers added  0 unchanged  a",
        "error: b: line 2, column 1: invalid JSON",
        " 50% 2/4 files  3 drawers added  0 unchanged  1 errors  b",
        " 75% 3/4 files  3 drawers added  1 unchanged  1 errors  c",
        "100% 4/4 files  3 drawers added  1 unchanged  1 errors  d",
        SUMMARY,
        "",
      ].join("\n"),
    );
  });

  it("quiet (--json): only the errors", () => {
    expect(run(events, { isTTY: true }, true)).toBe("error: b: line 2, column 1: invalid JSON\n");
  });

  it("redraws one line in place on a terminal, clearing it for errors and the summary", () => {
    const output = run(events, { isTTY: true, columns: 200 });
    expect(
      output.startsWith(
        "mining 4 files from /p (project)\n\r\u001b[2K░░░░░░░░░░░░░░░░░░░░░░░░░░░░   0% 0/4 files  0 drawers added  0 unchanged\r\u001b[2K",
      ),
    ).toBe(true);
    expect(output).toContain("\r\u001b[2Kerror: b: line 2, column 1: invalid JSON\n");
    expect(output).toContain(
      "\r\u001b[2K████████████████████████████ 100% 4/4 files  3 drawers added  1 unchanged  1 errors  d",
    );
    expect(output.endsWith(`\r\u001b[2K${SUMMARY}\n`)).toBe(true);
  });

  it("keeps a terminal line within the terminal's width", () => {
    const output = run(events, { isTTY: true, columns: 40 });
    const bars = output.split("\r\u001b[2K").filter((line) => /^[█░]/.test(line));
    expect(bars.length).toBeGreaterThan(2);
    for (const bar of bars) expect(bar.length).toBeLessThanOrEqual(39);
  });
});

describe("summary", () => {
  it("counts errors when there are any", () => {
    expect(summary({ ...result, errors: [{ file: "x", message: "y" }] })).toBe(`${SUMMARY}, 1 errors`);
  });
});
