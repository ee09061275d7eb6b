import { randomBytes } from "node:crypto";
import { GuestFileError } from "../errors.js";
import type { AgentChannel } from "./agent-channel.js";

/** Bytes of host entropy per restore: a full CRNG key's worth several times over. */
const ENTROPY_BYTES = 64;

/**
 * Tells a just-restored guest that it was: the host's clock, and entropy the agent mixes into the
 * kernel's pool before forcing a CRNG reseed (agent.c `do_resumed`). Without it every clone of a
 * snapshot would read the same bytes from /dev/urandom, and a clock stopped at the snapshot.
 */
export function sendResumed(channel: AgentChannel, timeoutMs: number): Promise<void> {
  const id = channel.allocateId();
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      channel.release(id);
      reject(new Error(`the restored guest's agent did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    channel.listen(id, (frame) => {
      if (frame.type !== "ok" && frame.type !== "error") return;
      clearTimeout(timer);
      channel.release(id);
      if (frame.type === "ok") resolve();
      else
        reject(
          new GuestFileError(
            `the restored guest could not take fresh entropy: ${frame.message}`,
            frame.errno,
          ),
        );
    });
    channel.send({ type: "resumed", id, timeMs: Date.now(), entropy: randomBytes(ENTROPY_BYTES) });
  });
}
