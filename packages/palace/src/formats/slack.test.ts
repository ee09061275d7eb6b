import { describe, expect, it } from "vitest";
import { exportFixture } from "../../test/export-fixture.js";
import { parseSlackDay, resolveMarkup, slackUsers } from "./slack.js";

describe("Slack export", () => {
  const users = slackUsers(JSON.parse(exportFixture("slack/users.json")));

  it("names people by display name, else real name", () => {
    expect([...users]).toEqual([
      ["U01AAA", "Rosa"],
      ["U01BBB", "Tomas Okafor"],
      ["B01BOT", "Reminders"],
    ]);
  });

  it("reads a day as one conversation, leaving out join notices and resolving mentions and links", () => {
    const parsed = parseSlackDay(JSON.parse(exportFixture("slack/general/2024-03-04.json")), {
      conversationId: "general/2024-03-04",
      channel: "general",
      users,
    });
    expect(parsed).toEqual({
      conversations: [
        {
          id: "general/2024-03-04",
          title: "#general",
          messages: [
            {
              turnId: "1709550060.000200",
              speaker: "Rosa",
              role: "user",
              text: "Welcome @Tomas Okafor! The quarterly budget review moved to Thursday.",
              timestamp: "2024-03-04T11:01:00.000Z",
            },
            {
              turnId: "1709550120.000300",
              speaker: "Tomas Okafor",
              role: "user",
              text: "Thanks! I'll send the invoice numbers before then & check the budget sheet (https://example.com/budget).",
              timestamp: "2024-03-04T11:02:00.000Z",
            },
            {
              turnId: "1709553600.000400",
              speaker: "Reminders",
              role: "other",
              text: "Reminder: budget review Thursday 10:00",
              timestamp: "2024-03-04T12:00:00.000Z",
            },
          ],
        },
      ],
      problems: [],
    });
  });

  it("falls back to the message's own profile for people missing from users.json", () => {
    const parsed = parseSlackDay(JSON.parse(exportFixture("slack/garden-club/2024-03-05.json")), {
      conversationId: "garden-club/2024-03-05",
      channel: "garden-club",
      users,
    });
    expect(parsed.conversations[0]!.messages.map((message) => message.speaker)).toEqual([
      "Tomas Okafor",
      "Rosa",
      "Guest Gardener",
    ]);
  });

  it("writes Slack markup readably", () => {
    expect(resolveMarkup("<!here> see <#C1|general> and <https://a.example> &lt;3", new Map())).toBe(
      "@here see #general and https://a.example <3",
    );
  });

  it("names a message without ts and refuses a file that is no day", () => {
    const parsed = parseSlackDay([{ type: "message", text: "no ts" }], {
      conversationId: "c/d",
      channel: "c",
      users,
    });
    expect(parsed.problems).toEqual([
      { position: "$[0]", message: 'not a Slack message (no "ts"); skipped' },
    ]);
    expect(() => parseSlackDay({}, { conversationId: "c/d", channel: "c", users })).toThrow(
      "$: expected a Slack day file (an array of messages), got an object",
    );
  });
});
