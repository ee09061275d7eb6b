import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CommandTestSession, openCommandTestSession } from "../../../test/fixtures/command-session.js";
import { numberFormat } from "./nl-command.js";

// Every expected output here is GNU coreutils 9.1's (LC_ALL=C.UTF-8) on the same input.
let shell: CommandTestSession;
beforeAll(async () => {
  shell = await openCommandTestSession();
});
afterAll(() => shell?.close());
const out = async (command: string) => (await shell.run(command)).stdout;

describe("nl", () => {
  it("prints a line it does not number as the width plus the separator's length in spaces", async () => {
    // just-bash printed 6 spaces and a tab
    expect(await out("printf 'x\\n\\ny\\n' | nl")).toBe("     1\tx\n       \n     2\ty\n");
    expect(await out("printf 'x\\n\\ny\\n' | nl -w3 -s'|'")).toBe("  1|x\n    \n  2|y\n");
    expect(await out("printf 'x\\n\\ny\\n' | nl -nln")).toBe("1     \tx\n       \n2     \ty\n");
    // the separator's length in bytes, as GNU counts it
    expect(await out("printf 'x\\n\\ny\\n' | nl -s '→'")).toBe("     1→x\n         \n     2→y\n");
  });
  it("numbers every line with -ba, as just-bash already did", async () => {
    expect(await out("printf 'x\\n\\ny\\n' | nl -ba")).toBe("     1\tx\n     2\t\n     3\ty\n");
  });
  it("reads -w and -s in every spelling, skipping other options' values", () => {
    expect(numberFormat([])).toEqual({ width: 6, separator: "\t" });
    expect(numberFormat(["-w", "3", "-s", ": "])).toEqual({ width: 3, separator: ": " });
    expect(numberFormat(["-bt", "-w4", "-s|"])).toEqual({ width: 4, separator: "|" });
    expect(numberFormat(["-b", "a", "--number-width=2", "--number-separator", "."])).toEqual({
      width: 2,
      separator: ".",
    });
    expect(numberFormat(["-n", "rz", "-v", "5"])).toEqual({ width: 6, separator: "\t" });
  });
});
