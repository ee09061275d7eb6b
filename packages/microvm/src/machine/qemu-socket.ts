import { createConnection, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Connects to a Unix socket QEMU listens on (`server=on,wait=off`), which appears shortly after
 * QEMU starts: tries again every 5 ms while QEMU lives, until `timeoutMs`. `open` turns the
 * connected socket into what the caller wants; its failure counts as a failed try.
 */
export async function connectQemuSocket<T>(
  path: string,
  isAlive: () => boolean,
  timeoutMs: number,
  open: (socket: Socket) => T | Promise<T>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let socket: Socket | undefined;
    try {
      socket = await new Promise<Socket>((resolve, reject) => {
        const s = createConnection(path);
        s.once("connect", () => resolve(s));
        s.once("error", reject);
      });
      return await open(socket);
    } catch (error) {
      socket?.destroy();
      if (!isAlive() || Date.now() > deadline) throw error;
      await sleep(5);
    }
  }
}
