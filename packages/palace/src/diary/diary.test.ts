import { afterAll, describe, expect, it } from "vitest";
import { TestPalaces } from "../../test/test-palaces.js";
import { diaryRead, diaryWrite } from "./diary.js";

const palaces = new TestPalaces();
afterAll(() => palaces.cleanup());

describe("diaries", () => {
  it("files entries in wing diary:<agent>, hall diary, room = topic or day; reads newest first", async () => {
    const palace = await palaces.open();
    const first = await diaryWrite(palace, "scout", "Mapped the billing module.", {
      timestamp: "2024-03-01T09:00:00Z",
    });
    expect(first).toMatchObject({ created: true, room: "2024-03-01", timestamp: "2024-03-01T09:00:00Z" });
    await diaryWrite(palace, "scout", "Billing retries are capped at 3.", {
      topic: "billing",
      timestamp: "2024-03-02T10:00:00Z",
    });
    await diaryWrite(palace, "scout", "Mapped the billing module.", { timestamp: "2024-03-03T09:00:00Z" });
    await diaryWrite(palace, "other", "Not scout's.", { timestamp: "2024-03-04T09:00:00Z" });

    expect(await palace.get(first.id)).toMatchObject({
      wing: "diary:scout",
      room: "2024-03-01",
      hall: "diary",
      speaker: "scout",
    });
    // The same words on another day are another entry; the same call again files nothing.
    expect(
      await diaryWrite(palace, "scout", "Mapped the billing module.", { timestamp: "2024-03-01T09:00:00Z" }),
    ).toEqual({ ...first, created: false });

    const entries = await diaryRead(palace, "scout");
    expect(entries.map(({ entry, room, topic, timestamp }) => ({ entry, room, topic, timestamp }))).toEqual([
      {
        entry: "Mapped the billing module.",
        room: "2024-03-03",
        topic: undefined,
        timestamp: "2024-03-03T09:00:00Z",
      },
      {
        entry: "Billing retries are capped at 3.",
        room: "billing",
        topic: "billing",
        timestamp: "2024-03-02T10:00:00Z",
      },
      {
        entry: "Mapped the billing module.",
        room: "2024-03-01",
        topic: undefined,
        timestamp: "2024-03-01T09:00:00Z",
      },
    ]);
    expect((await diaryRead(palace, "scout", { last: 1 })).map((entry) => entry.timestamp)).toEqual([
      "2024-03-03T09:00:00Z",
    ]);
    expect(
      (await diaryRead(palace, "scout", { since: "2024-03-02" })).map((entry) => entry.timestamp),
    ).toEqual(["2024-03-03T09:00:00Z", "2024-03-02T10:00:00Z"]);
    expect((await diaryRead(palace, "scout", { topic: "billing" })).map((entry) => entry.entry)).toEqual([
      "Billing retries are capped at 3.",
    ]);
    expect(await diaryRead(palace, "nobody")).toEqual([]);
  });

  it("refuses bad input naming the field", async () => {
    const palace = await palaces.open();
    await expect(diaryWrite(palace, "", "x")).rejects.toThrow("agent: must be a non-empty name");
    await expect(diaryWrite(palace, "a", "  ")).rejects.toThrow("entry: must be non-empty text");
    await expect(diaryWrite(palace, "a", "x", { timestamp: "tuesday" })).rejects.toThrow(
      'timestamp: "tuesday" is not an ISO 8601 time',
    );
    await expect(diaryRead(palace, "a", { last: 0 })).rejects.toThrow(
      "last: must be an integer from 1 to 1000, got 0",
    );
    await expect(diaryRead(palace, "a", { since: "soon" })).rejects.toThrow(
      'since: "soon" is not an ISO 8601 time',
    );
    await expect(diaryRead(palace, "a\u0000b")).rejects.toThrow(
      "agent: holds the character U+0000 (NUL), which no diary name may hold; remove it",
    );
    await expect(diaryRead(palace, "a", { topic: "x\u0000" })).rejects.toThrow(
      "topic: holds the character U+0000 (NUL), which no diary name may hold; remove it",
    );
  });
});
