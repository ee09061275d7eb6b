import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GuestFileError, Machine, RequestTooLargeError } from "../src/index.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

// The guest's ways to hurt the host, or the next request, through the data paths of one machine:
// each attack of the audit, then the proof that the machine still takes work.
describe.skipIf(SKIP_VM_SUITES)("data paths of a busybox machine under attack", () => {
  let machine: Machine;

  beforeAll(async () => {
    machine = await Machine.create({ image: "busybox" });
  }, 180_000);

  afterAll(async () => {
    await machine?.stop();
  });

  const healthy = async () => expect((await machine.exec("echo still here")).stdout).toBe("still here\n");

  it("a timeout kills what the command started in a new session too (`setsid sleep 600 &`)", async () => {
    // Without a timeout a detached sleep survives its command, which is what `ps` must see...
    expect((await machine.exec("setsid sleep 601 >/dev/null 2>&1 &")).exitCode).toBe(0);
    expect((await machine.exec("ps | grep -c 'sleep 60[1]'")).stdout).toBe("1\n");
    await machine.exec("pkill -f 'sleep 601'");
    // ...and with one, nothing the command started is left.
    const result = await machine.exec("setsid sleep 600 >/dev/null 2>&1 & sleep 30", { timeoutMs: 1000 });
    expect(result).toMatchObject({ exitCode: 124, timedOut: true });
    const ps = await machine.exec("ps | grep 'sleep 60[0]'");
    expect(ps).toMatchObject({ exitCode: 1, stdout: "" });
    await healthy();
  }, 60_000);

  it("refuses FIFOs and devices for readFile and writeFile instead of hanging", async () => {
    await machine.exec("mkfifo /tmp/fifo");
    await expect(machine.readFile("/tmp/fifo")).rejects.toThrow(
      "readFile /tmp/fifo: a FIFO; only regular files are transferred",
    );
    await expect(machine.writeFile("/tmp/fifo", "x")).rejects.toThrow(
      "writeFile /tmp/fifo: a FIFO or device without a reader; only regular files are transferred",
    );
    // A FIFO with a reader waiting opens, and is still refused.
    const reader = machine.exec("cat /tmp/fifo", { timeoutMs: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await expect(machine.writeFile("/tmp/fifo", "x")).rejects.toThrow(
      "writeFile /tmp/fifo: a FIFO; only regular files are transferred",
    );
    await reader;
    await expect(machine.readFile("/dev/zero")).rejects.toThrow(
      "readFile /dev/zero: a character device; only regular files are transferred",
    );
    const refused = machine.readFile("/dev/zero");
    await expect(refused).rejects.toBeInstanceOf(GuestFileError);
    await healthy();
  }, 60_000);

  it("a file over maxReadFileBytes is refused by the agent, and the next exec works", async () => {
    // Sparse: 300 MiB of size, no memory.
    await machine.exec("dd if=/dev/zero of=/tmp/big bs=1 count=0 seek=300M 2>/dev/null");
    await expect(machine.readFile("/tmp/big")).rejects.toThrow(
      "readFile /tmp/big: larger than the host's limit of 268435456 bytes (maxReadFileBytes)",
    );
    await healthy();
  }, 60_000);

  it("a transfer the host gives up on leaves the channel usable", async () => {
    await machine.exec("head -c 16777216 /dev/zero > /tmp/sixteen");
    await expect(machine.readFile("/tmp/sixteen", { timeoutMs: 20 })).rejects.toThrow(
      "readFile /tmp/sixteen: no answer from the guest within 20 ms (fileTransferTimeoutMs); the transfer was abandoned",
    );
    await healthy();
    expect((await machine.readFile("/tmp/sixteen")).byteLength).toBe(16 * 1024 * 1024);
    await machine.exec("rm /tmp/sixteen");
  }, 60_000);

  it("refuses an exec over the agent's frame limit on the host; the guest is unaffected", async () => {
    const attempt = machine.exec(["/bin/echo", "x".repeat(1024 * 1024)]);
    await expect(attempt).rejects.toBeInstanceOf(RequestTooLargeError);
    await expect(attempt).rejects.toThrow(
      /^exec: the command's argv, environment and cwd take \d+ bytes, over the guest agent's limit of 1048640; pass large data through stdin or writeFile$/,
    );
    await expect(machine.exec("true", { env: { BIG: "y".repeat(2 * 1024 * 1024) } })).rejects.toThrow(
      RequestTooLargeError,
    );
    await expect(machine.readFile(`/tmp/${"p".repeat(2 * 1024 * 1024)}`)).rejects.toThrow(
      /^readFile: the path takes \d+ bytes, over the guest agent's limit of 1048640$/,
    );
    // A path just under the frame limit reaches the guest, which answers with its error.
    await expect(machine.readFile(`/tmp/${"p".repeat(1024 * 1024)}`)).rejects.toMatchObject({ errno: 36 });
    await healthy();
    // Just under the limit still goes through (in pieces: Linux caps one argument at 128 KiB).
    const pieces = Array.from({ length: 9 }, () => "z".repeat(100_000));
    const result = await machine.exec(["/bin/sh", "-c", 'printf %s "$@" | wc -c', "sh", ...pieces]);
    expect(result.stdout.trim()).toBe("900000");
  }, 60_000);

  it("a consumer that holds its output slows the command down instead of buffering it", async () => {
    let received = 0;
    let release: (() => void) | undefined;
    const result = machine.exec("head -c 8388608 /dev/zero", {
      keepOutput: false,
      onStdout: (chunk) => {
        received += chunk.byteLength;
        // The first chunk is held for a second: nothing more may arrive meanwhile but what was
        // already in flight in one socket read.
        if (!release) return new Promise<void>((resolve) => (release = resolve));
        return undefined;
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const whileHeld = received;
    release?.();
    expect((await result).exitCode).toBe(0);
    expect(whileHeld).toBeLessThan(512 * 1024);
    expect(received).toBe(8 * 1024 * 1024);
  }, 60_000);
});
