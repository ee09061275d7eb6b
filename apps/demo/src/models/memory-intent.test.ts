import { describe, expect, it } from "vitest";
import { factOf, readMemoryIntent } from "./memory-intent.js";

describe("readMemoryIntent", () => {
  it("keeps statements about the user verbatim, with their facts", () => {
    expect(readMemoryIntent("Remember that I prefer TypeScript examples. My project uses Next.js.")).toEqual({
      statements: ["I prefer TypeScript examples.", "My project uses Next.js."],
      facts: [
        { statement: "I prefer TypeScript examples.", predicate: "prefers", object: "TypeScript examples" },
        { statement: "My project uses Next.js.", predicate: "project_uses", object: "Next.js" },
      ],
      docsQuestion: "",
    });
    expect(readMemoryIntent("remember that the launch is on Friday")).toEqual({
      statements: ["The launch is on Friday"],
      facts: [],
      docsQuestion: "",
    });
  });

  it("tells questions about the user from docs questions for the user's own thing", () => {
    expect(readMemoryIntent("What do I prefer?").reference).toEqual({ kind: "about-user", topic: "prefer" });
    expect(readMemoryIntent("Which framework does my project use?")).toEqual({
      statements: [],
      facts: [],
      reference: { kind: "about-user", topic: "project" },
      docsQuestion: "",
    });
    expect(readMemoryIntent("How do I set up deployments for my project?")).toEqual({
      statements: [],
      facts: [],
      reference: { kind: "for-user", topic: "project" },
      docsQuestion: "How do I set up deployments for my project?",
    });
  });

  it("leaves everyday docs questions alone: 'my docs' is the docs, 'How do I' asks about them", () => {
    for (const question of [
      "How do I set up a custom domain for my docs?",
      "How can I preview my documentation locally before publishing?",
      "I want to add Google Analytics to my site.",
    ]) {
      expect(readMemoryIntent(question)).toEqual({ statements: [], facts: [], docsQuestion: question });
    }
  });

  it("takes a fact only from a clear subject–predicate–object", () => {
    expect(factOf("My project is hosted on GitLab.")).toEqual({
      predicate: "project_is_hosted_on",
      object: "GitLab",
    });
    expect(factOf("I like short answers!")).toEqual({ predicate: "likes", object: "short answers" });
    expect(factOf("The launch is on Friday")).toBeUndefined();
  });
});
