import { describe, expect, it } from "vitest";
import { progressBar } from "../src/cli/index.js";

function capture(isTTY: boolean, columns?: number) {
  let text = "";
  return {
    stream: { isTTY, columns, write: (chunk: string | Uint8Array) => (text += String(chunk)) },
    text: () => text,
  };
}

describe("progressBar", () => {
  it("redraws one line in place on a terminal, and clears it", () => {
    const out = capture(true);
    let clock = 0;
    const bar = progressBar({ stream: out.stream, now: () => clock });
    bar.update(0, 4, "reading 0/4");
    clock += 10;
    bar.update(1, 4, "reading 1/4"); // too soon: not drawn
    clock += 200;
    bar.update(2, 4, "reading 2/4");
    bar.update(4, 4, "reading 4/4"); // the last is always drawn
    bar.clear();
    expect(out.text().split("\r\u001b[2K")).toEqual([
      "",
      "░░░░░░░░░░░░░░░░░░░░░░░░░░░░   0% reading 0/4",
      "██████████████░░░░░░░░░░░░░░  50% reading 2/4",
      "████████████████████████████ 100% reading 4/4",
      "",
    ]);
    expect(bar.drawing).toBe(true);
  });

  it("prints a line above the bar and draws the bar again below it", () => {
    const out = capture(true);
    const bar = progressBar({ stream: out.stream });
    bar.update(1, 2);
    bar.print("error: a.json: invalid JSON");
    expect(out.text()).toBe(
      [
        "\r\u001b[2K██████████████░░░░░░░░░░░░░░  50%",
        "\r\u001b[2Kerror: a.json: invalid JSON\n",
        "\r\u001b[2K██████████████░░░░░░░░░░░░░░  50%",
      ].join(""),
    );
  });

  it("keeps within the terminal's width", () => {
    const out = capture(true, 40);
    progressBar({ stream: out.stream }).update(1, 3, "a label much longer than the terminal is wide");
    expect(out.text().replace("\r\u001b[2K", "")).toHaveLength(39);
  });

  it("draws nothing off a terminal or when quiet; printed lines still appear", () => {
    for (const [out, quiet] of [
      [capture(false), false],
      [capture(true), true],
    ] as const) {
      const bar = progressBar({ stream: out.stream, quiet });
      bar.update(1, 2, "half");
      bar.print("notice");
      bar.update(2, 2, "all");
      bar.clear();
      expect(out.text()).toBe("notice\n");
      expect(bar.drawing).toBe(false);
    }
  });
});
