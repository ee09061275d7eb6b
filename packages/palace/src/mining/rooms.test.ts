import { ValidationError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import type { Conversation } from "../formats/conversation.js";
import { keywordVote, normalizeWord } from "./keyword-vote.js";
import { parseRoomRules, RoomClassifier } from "./rooms.js";

const conversation = (title: string | undefined, ...texts: string[]): Conversation => ({
  id: "c",
  ...(title ? { title } : {}),
  messages: texts.map((text, index) => ({ turnId: String(index), speaker: "user", role: "user", text })),
});

describe("RoomClassifier", () => {
  const classifier = new RoomClassifier();

  it("files conversations by the topic their words vote for", () => {
    expect(
      classifier.conversationRoom(
        conversation("Weekend bread", "My sourdough loaf came out flat, is the oven too cool?"),
        "x",
      ),
    ).toBe("food");
    expect(
      classifier.conversationRoom(
        conversation(undefined, "The vet says my dog needs a walk twice a day."),
        "x",
      ),
    ).toBe("pets");
    expect(
      classifier.conversationRoom(
        conversation(undefined, "Why does my SQL query ignore the index on that table?"),
        "x",
      ),
    ).toBe("data");
    expect(classifier.conversationRoom(conversation(undefined, "ok", "thanks"), "x")).toBe("general");
  });

  it("files a project file by its folder room, else by what its name and headings say", () => {
    const file = {
      path: "LICENSE",
      folderRoom: undefined,
      headings: [],
      content: "MIT License\n\nCopyright (c) 2025",
    };
    expect(classifier.projectRoom(file)).toBe("security");
    expect(classifier.projectRoom({ ...file, folderRoom: "legal" })).toBe("legal");
    expect(
      classifier.projectRoom({
        path: "CONTRIBUTING.md",
        folderRoom: undefined,
        headings: ["How to contribute"],
        content: "Open a pull request.",
      }),
    ).toBe("docs");
    expect(
      classifier.projectRoom({ path: "x.txt", folderRoom: undefined, headings: [], content: "zzz" }),
    ).toBe("general");
  });

  it("lets a rooms config decide first: paths outright, then its keywords", () => {
    const configured = new RoomClassifier(
      parseRoomRules([
        { name: "billing", keywords: ["invoice", "refund"], paths: ["payments/"] },
        { name: "people", keywords: ["onboarding"] },
      ]),
    );
    const file = { folderRoom: "web", headings: [], content: "nothing relevant" };
    expect(configured.projectRoom({ ...file, path: "payments/stripe.ts" })).toBe("billing");
    expect(
      configured.projectRoom({ ...file, path: "web/a.ts", content: "refund the invoice, then refund again" }),
    ).toBe("billing");
    expect(configured.projectRoom({ ...file, path: "web/a.ts" })).toBe("web");
    expect(configured.conversationRoom(conversation("Onboarding", "first week plan"), "x")).toBe("people");
  });
});

describe("parseRoomRules", () => {
  it("names every problem of a bad config at once", () => {
    let caught: unknown;
    try {
      parseRoomRules([{ name: "" }, { name: "a", keywords: "invoice" }, { name: "b" }, 7]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as Error).message).toBe(
      'rooms config: 0.name: expected a non-empty string; 1.keywords: expected an array of non-empty strings; 1: room "a" needs keywords or paths to be chosen; 2: room "b" needs keywords or paths to be chosen; 3: expected an object with a name',
    );
  });

  it("refuses a config that is not an array", () => {
    expect(() => parseRoomRules({ billing: ["invoice"] })).toThrow(
      "rooms config: expected an array of { name, keywords?, paths? }",
    );
  });
});

describe("keywordVote", () => {
  it("weights words and needs a minimum score", () => {
    const rooms = [
      { name: "a", keywords: ["apple"] },
      { name: "b", keywords: ["banana", "ripe fruit"] },
    ];
    expect(keywordVote([{ text: "Apples and apples", weight: 1 }], rooms)).toBe("a");
    expect(keywordVote([{ text: "one banana", weight: 1 }], rooms)).toBeUndefined();
    expect(keywordVote([{ text: "one banana", weight: 3 }], rooms)).toBe("b");
    expect(
      keywordVote(
        [
          { text: "Ripe fruit, ripe fruit", weight: 1 },
          { text: "apple", weight: 1 },
        ],
        rooms,
      ),
    ).toBe("b");
  });

  it("normalises plurals", () => {
    expect(["recipes", "stories", "class", "bus", "is"].map(normalizeWord)).toEqual([
      "recipe",
      "story",
      "class",
      "bus",
      "is",
    ]);
  });
});
