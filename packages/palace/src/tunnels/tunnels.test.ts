import { afterAll, describe, expect, it } from "vitest";
import { TestPalaces } from "../../test/test-palaces.js";

const palaces = new TestPalaces();
afterAll(() => palaces.cleanup());

async function filled() {
  const palace = await palaces.open();
  const filed = await palace.file([
    { content: "Alice booked flights to Lisbon.", wing: "alice", room: "travel", timestamp: "2024-01-01" },
    { content: "Alice renewed her passport.", wing: "alice", room: "travel", timestamp: "2024-01-02" },
    { content: "Bob wants to see Porto.", wing: "bob", room: "travel", timestamp: "2024-01-03" },
    { content: "Bob fixed the deploy script.", wing: "bob", room: "work", timestamp: "2024-01-04" },
    { content: "Alice paints on Sundays.", wing: "alice", room: "hobbies", timestamp: "2024-01-05" },
  ]);
  return { palace, ids: filed.map((result) => result.id) };
}

describe("tunnels", () => {
  it("derives a tunnel from a room name two wings share, and follows it", async () => {
    const { palace } = await filled();
    expect(palace.tunnels.derived()).toEqual([
      {
        room: "travel",
        wings: [
          { wing: "alice", drawers: 2 },
          { wing: "bob", drawers: 1 },
        ],
      },
    ]);
    expect(palace.tunnels.derived({ wing: "bob", room: "work" })).toEqual([]);
    const [destination, ...rest] = palace.tunnels.follow({ wing: "bob", room: "travel" });
    expect(rest).toEqual([]);
    expect(destination?.tunnel).toBeUndefined();
    expect(destination?.end).toEqual({ wing: "alice", room: "travel" });
    expect(destination?.drawers.map((drawer) => drawer.content)).toEqual([
      "Alice renewed her passport.",
      "Alice booked flights to Lisbon.",
    ]);
  });

  it("creates, finds, follows and deletes explicit room and drawer links", async () => {
    const { palace, ids } = await filled();
    const rooms = palace.tunnels.create({
      from: { wing: "bob", room: "work" },
      to: { wing: "alice", room: "hobbies" },
      label: "weekend plans",
    });
    expect(rooms.created).toBe(true);
    expect(rooms.tunnel).toMatchObject({
      from: { wing: "bob", room: "work" },
      to: { wing: "alice", room: "hobbies" },
      label: "weekend plans",
    });
    expect(rooms.tunnel.id).toMatch(/^tn_[0-9a-f]{24}$/);
    expect(
      palace.tunnels.create({
        from: { wing: "bob", room: "work" },
        to: { wing: "alice", room: "hobbies" },
        label: "weekend plans",
      }),
    ).toEqual({ tunnel: rooms.tunnel, created: false });
    const drawers = palace.tunnels.create({ from: { drawerId: ids[2]! }, to: { drawerId: ids[0]! } });

    expect(palace.tunnels.list().map((tunnel) => tunnel.id)).toEqual([rooms.tunnel.id, drawers.tunnel.id]);
    expect(palace.tunnels.list({ wing: "alice", room: "travel" }).map((tunnel) => tunnel.id)).toEqual([
      drawers.tunnel.id,
    ]);
    expect(palace.tunnels.find({ wing: "bob", room: "work" })).toEqual({
      derived: [],
      explicit: [rooms.tunnel],
    });

    expect(
      palace.tunnels.follow(rooms.tunnel.id).map((d) => d.drawers.map((drawer) => drawer.content)),
    ).toEqual([["Alice paints on Sundays."]]);
    expect(
      palace.tunnels.follow(rooms.tunnel.id, { reverse: true })[0]?.drawers.map((drawer) => drawer.content),
    ).toEqual(["Bob fixed the deploy script."]);
    // From a drawer, and from a room that has both a derived and an explicit way out.
    expect(
      palace.tunnels.follow({ drawerId: ids[0]! }).map((d) => [d.tunnel?.id, d.drawers[0]?.content]),
    ).toEqual([[drawers.tunnel.id, "Bob wants to see Porto."]]);
    expect(palace.tunnels.follow({ wing: "alice", room: "hobbies" }).map((d) => d.end)).toEqual([
      { wing: "bob", room: "work" },
    ]);

    expect(palace.tunnels.delete(rooms.tunnel.id)).toBe(true);
    expect(palace.tunnels.delete(rooms.tunnel.id)).toBe(false);
    expect(palace.tunnels.list()).toEqual([drawers.tunnel]);
  });

  it("refuses bad ends, naming the field and what to write", async () => {
    const { palace, ids } = await filled();
    expect(() =>
      palace.tunnels.create({ from: { wing: "a", room: "b" }, to: { wing: "a", room: "b" } }),
    ).toThrow("to: is the same place as from; a tunnel links two different rooms or drawers");
    expect(() => palace.tunnels.create({ from: { drawerId: "d_nope" }, to: { drawerId: ids[0]! } })).toThrow(
      "from.drawerId: no drawer has id d_nope; find ids with search or list",
    );
    expect(() => palace.tunnels.create({ from: { wing: "a" } as never, to: { drawerId: ids[0]! } })).toThrow(
      "from: must name both wing and room (or a drawerId)",
    );
    expect(() =>
      palace.tunnels.create({
        from: { wing: "a", room: "b", drawerId: ids[0]! } as never,
        to: { wing: "c", room: "d" },
      }),
    ).toThrow("from: names a drawerId and a room; a tunnel end is one or the other");
    expect(() =>
      palace.tunnels.create({ from: { wing: "a", room: "b\u0000c" }, to: { drawerId: ids[0]! } }),
    ).toThrow(
      "from.room: holds the character U+0000 (NUL), which no wing, room, drawer id or label may hold; remove it",
    );
    expect(palace.tunnels.get("tn_\u0000")).toBeUndefined();
    expect(palace.tunnels.delete("tn_\u0000")).toBe(false);
    expect(() => palace.tunnels.follow("tn_missing")).toThrow("No tunnel has id tn_missing");
    expect(() => palace.tunnels.follow({ wing: "alice", room: "travel" }, { limit: 0 })).toThrow(
      "limit: must be an integer from 1 to 1000, got 0",
    );
  });

  it("explicit tunnels persist in the palace's store across a reopen", async () => {
    const dir = await palaces.dir();
    const first = await palaces.open({}, dir);
    const { tunnel } = first.tunnels.create({ from: { wing: "a", room: "x" }, to: { wing: "b", room: "y" } });
    await first.close();
    expect(() => first.tunnels).toThrow("closed");
    const again = await palaces.open({}, dir);
    expect(again.tunnels.list()).toEqual([tunnel]);
  });
});
