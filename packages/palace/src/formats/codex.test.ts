import { describe, expect, it } from "vitest";
import { exportFixture } from "../../test/export-fixture.js";
import { parseCodexRollout } from "./codex.js";

describe("parseCodexRollout", () => {
  it("reads messages of a current rollout, leaving out injected context, reasoning, tools and event echoes", () => {
    const text = exportFixture(
      "codex/rollout-2025-02-03T14-05-11-0195c2d1-aaaa-7bbb-8ccc-000000000042.jsonl",
    );
    const session = "0195c2d1-aaaa-7bbb-8ccc-000000000042";
    expect(parseCodexRollout(text, "fallback")).toEqual({
      conversations: [
        {
          id: session,
          messages: [
            {
              turnId: `${session}#L3`,
              speaker: "user",
              role: "user",
              text: "Add a migration that adds an index on orders.customer_id",
              timestamp: "2025-02-03T14:05:20.000Z",
            },
            {
              turnId: `${session}#L9`,
              speaker: "assistant",
              role: "assistant",
              text: "I added db/migrations/0002_orders_customer_index.sql, which creates the index concurrently so the table is not locked.",
              timestamp: "2025-02-03T14:05:40.000Z",
            },
          ],
        },
      ],
      problems: [],
    });
  });

  it("reads the older unwrapped format", () => {
    const parsed = parseCodexRollout(exportFixture("codex/rollout-legacy.jsonl"), "fallback");
    expect(parsed.conversations[0]!.id).toBe("7f1c0b9e-2222-4333-8444-000000000007");
    expect(parsed.conversations[0]!.messages.map((message) => [message.role, message.text])).toEqual([
      ["user", "Why does git say my branch diverged?"],
      [
        "assistant",
        "Your branch and its remote both have commits the other lacks. Rebase onto the remote or merge it.",
      ],
    ]);
  });
});
