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

  it("off a terminal writes a plain line as each tenth is done, never redraws", () => {
    const out = capture(false);
    const bar = progressBar({ stream: out.stream });
    for (let done = 0; done <= 40; done++) bar.update(done, 40, `${done}/40`);
    for (const done of [0, 1, 3]) bar.update(done, 3, `${done}/3`); // another total: its own tenths
    bar.print("notice");
    bar.clear();
    expect(out.text()).toBe(
      [
        " 10% 4/40",
        " 20% 8/40",
        " 30% 12/40",
        " 40% 16/40",
        " 50% 20/40",
        " 60% 24/40",
        " 70% 28/40",
        " 80% 32/40",
        " 90% 36/40",
        "100% 40/40",
        " 33% 1/3",
        "100% 3/3",
        "notice",
        "",
      ].join("\n"),
    );
    expect(bar.drawing).toBe(false);
  });

  it("quiet draws nothing; printed lines still appear", () => {
    for (const out of [capture(false), capture(true)]) {
      const bar = progressBar({ stream: out.stream, quiet: true });
      bar.update(1, 2, "half");
      bar.print("notice");
      bar.update(2, 2, "all");
      bar.clear();
      expect(out.text()).toBe("notice\n");
      expect(bar.drawing).toBe(false);
    }
  });
});
