import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Machine } from "../machine/machine.js";
import { serveMachine } from "./control-server.js";

/** Sends raw bytes on a real Unix socket and resolves to everything the server answers. */
function ask(path: string, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let reply = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (reply += chunk));
    socket.once("error", reject);
    socket.once("close", () => resolve(reply));
    socket.write(bytes);
  });
}

describe("serveMachine", () => {
  it("answers a line over the limit with an error and keeps serving", async () => {
    const dir = await mkdtemp(join(tmpdir(), "atrium-control-"));
    const path = join(dir, "control.sock");
    // Bad lines never reach the machine, so none is booted for this test.
    const server = await serveMachine({} as Machine, path, () => {}, { maxLineBytes: 1024 });
    try {
      const error = (message: string) => `${JSON.stringify({ type: "error", message })}\n`;
      // A peer that never sends a newline is cut off at the limit, not buffered without end.
      expect(await ask(path, "a".repeat(5000))).toBe(error("a control line is longer than 1024 bytes"));
      expect(await ask(path, `${"b".repeat(2000)}\n`)).toBe(
        error("a control line is longer than 1024 bytes"),
      );
      expect(await ask(path, '{"op":"launch"}\n')).toBe(error('bad control request: unknown op "launch"'));
      expect(await ask(path, '{"op":"write","path":"/x"}\n')).toBe(
        error("bad control request: write needs path and data strings"),
      );
      expect(server.listening).toBe(true);
    } finally {
      server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
