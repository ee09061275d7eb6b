import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  encodeBytesFrame,
  encodeJsonFrame,
  RemoteCallError,
  RemoteClosedError,
  RemoteEndpoint,
  serveRemote,
} from "../src/index.js";

function pair(handlers: Parameters<typeof serveRemote>[0]["handlers"]) {
  const toRemote = new PassThrough();
  const toHost = new PassThrough();
  const events: [string, unknown, Uint8Array | undefined][] = [];
  const closes: string[] = [];
  const server = serveRemote({
    input: toRemote,
    output: toHost,
    handlers,
    maxBytesBytes: 1 << 20,
    onClose: (why) => closes.push(why),
  });
  const endpoint = new RemoteEndpoint({
    input: toRemote,
    output: toHost,
    maxBytesBytes: 1 << 20,
    onEvent: (name, payload, attachment) => events.push([name, payload, attachment]),
  });
  return { server, endpoint, events, closes, toHost, toRemote };
}

describe("RemoteEndpoint and serveRemote", () => {
  it("answers calls in order, with values, errors and attached bytes", async () => {
    const { endpoint } = pair({
      echo: (args) => args,
      size: (_args, bytes) => bytes?.byteLength,
      later: async ([ms]) => {
        await new Promise((resolve) => setTimeout(resolve, ms as number));
        return "late";
      },
      fail: () => {
        throw new TypeError("no such thing");
      },
    });
    await expect(endpoint.call("echo", [1, "two"])).resolves.toEqual([1, "two"]);
    await expect(endpoint.call("size", [], { attachment: new Uint8Array(70_000) })).resolves.toBe(70_000);
    await expect(endpoint.call("later", [5])).resolves.toBe("late");
    const failure = await endpoint.call("fail").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RemoteCallError);
    expect(failure).toMatchObject({ name: "TypeError", message: "no such thing" });
    await expect(endpoint.call("missing")).rejects.toMatchObject({
      message: 'no method "missing" is served here',
    });
    await expect(endpoint.call("__proto__")).rejects.toMatchObject({
      message: 'no method "__proto__" is served here',
    });
  });

  it("delivers events with their bytes", async () => {
    const { server, events } = pair({});
    server.emit("tool-call", { name: "x" });
    server.emit("snapshot", undefined, new Uint8Array([7, 8]));
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual([
      ["tool-call", { name: "x" }, undefined],
      ["snapshot", undefined, Buffer.from([7, 8])],
    ]);
  });

  it("closes the channel, failing pending calls, when the remote breaks the protocol", async () => {
    const { endpoint, toHost } = pair({ hang: () => new Promise(() => undefined) });
    const pending = endpoint.call("hang");
    toHost.write(encodeJsonFrame({ t: "reply", id: "not a number", ok: true }));
    await expect(pending).rejects.toEqual(
      new RemoteClosedError("it sent a message that is not part of the protocol"),
    );
    await expect(endpoint.call("hang")).rejects.toBeInstanceOf(RemoteClosedError);
  });

  it("closes the channel on a reply to a call that is not waiting, and on bytes no message claims", async () => {
    const first = pair({});
    const pending = first.endpoint.call("missing").catch(() => undefined);
    await pending;
    first.toHost.write(encodeJsonFrame({ t: "reply", id: 99, ok: true }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(first.endpoint.closed).toEqual(new RemoteClosedError("it answered call 99, which is not waiting"));

    const second = pair({});
    second.toHost.write(encodeBytesFrame(new Uint8Array(4)));
    second.toHost.write(encodeJsonFrame({ t: "event", name: "x" }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(second.endpoint.closed).toEqual(new RemoteClosedError("it sent bytes that no message claimed"));
    expect(second.events).toEqual([]);
  });

  it("gives up on a call not answered within its time, closing the channel", async () => {
    const { endpoint } = pair({ hang: () => new Promise(() => undefined) });
    await expect(endpoint.call("hang", [], { timeoutMs: 20 })).rejects.toEqual(
      new RemoteClosedError("it did not answer hang within 20 ms"),
    );
  });

  it("closes the channel when the remote announces a frame over the limit", async () => {
    const toHost = new PassThrough();
    const endpoint = new RemoteEndpoint({
      input: new PassThrough(),
      output: toHost,
      maxJsonBytes: 100,
      onEvent() {},
    });
    const pending = endpoint.call("anything");
    toHost.write(Buffer.from([0, 0, 1, 0, 0]));
    await expect(pending).rejects.toEqual(
      new RemoteClosedError("its channel broke: a frame of 255 bytes was announced; the limit is 100"),
    );
  });
});
