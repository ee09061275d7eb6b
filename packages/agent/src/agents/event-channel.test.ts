import { describe, expect, it } from "vitest";
import { EventChannel } from "./event-channel.js";

/** A promise with its settle functions outside, to step the work by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("EventChannel", () => {
  it("drain yields what is queued, in order, and then nothing", () => {
    const channel = new EventChannel<number>();
    channel.push(1);
    channel.push(2);
    expect([...channel.drain()]).toEqual([1, 2]);
    expect([...channel.drain()]).toEqual([]);
  });

  it("during yields each event while the work runs, then returns the work's value", async () => {
    const channel = new EventChannel<string>();
    const work = deferred<number>();
    const events = channel.during(work.promise, () => {
      throw new Error("onLeave must not be called");
    });
    channel.push("before");
    expect(await events.next()).toEqual({ value: "before", done: false });
    // Nothing queued: the generator waits until an event arrives.
    const pending = events.next();
    setTimeout(() => channel.push("later"), 5);
    expect(await pending).toEqual({ value: "later", done: false });
    channel.push("last");
    work.resolve(42);
    expect(await events.next()).toEqual({ value: "last", done: false });
    expect(await events.next()).toEqual({ value: 42, done: true });
  });

  it("during yields the events queued before the work failed, then throws its error", async () => {
    const channel = new EventChannel<string>();
    const failure = new Error("step failed");
    const work = deferred<never>();
    const seen: string[] = [];
    const outcome = (async () => {
      for await (const event of channel.during(work.promise, () => {})) seen.push(event);
    })().catch((error: unknown) => error);
    channel.push("a");
    work.reject(failure);
    expect(await outcome).toBe(failure);
    expect(seen).toEqual(["a"]);
  });

  it("a consumer leaving during the work calls onLeave and returns once the work has settled", async () => {
    const channel = new EventChannel<string>();
    const work = deferred<void>();
    const order: string[] = [];
    const events = channel.during(work.promise, () => {
      order.push("onLeave");
      setTimeout(() => {
        order.push("work settled");
        work.reject(new Error("cancelled"));
      }, 5);
    });
    channel.push("first");
    await events.next();
    await events.return(undefined as never);
    order.push("returned");
    expect(order).toEqual(["onLeave", "work settled", "returned"]);
  });
});
