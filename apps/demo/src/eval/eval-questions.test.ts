import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ValidationError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { DEFAULT_CORPUS_DIR } from "../docs/default-locations.js";
import { loadEvalQuestions, USER_EVAL_FILE } from "./eval-questions.js";
import { grade, looseText } from "./grade.js";

describe("the docs evaluation questions", () => {
  const questions = loadEvalQuestions();

  it("has at least 30 questions spread over the corpus", () => {
    expect(questions.length).toBeGreaterThanOrEqual(30);
    const sections = new Set(questions.map((q) => q.page.split("/")[1]));
    expect(sections.size).toBeGreaterThanOrEqual(12);
  });

  it("names a page that exists and holds the fact, for every question of both files", () => {
    const missing = [...questions, ...loadEvalQuestions(USER_EVAL_FILE)].filter((q) => {
      const page = readFileSync(join(DEFAULT_CORPUS_DIR, q.page), "utf8");
      return !looseText(page).includes(looseText(q.fact));
    });
    expect(missing.map((q) => q.id)).toEqual([]);
  });
});

describe("the user questions (eval/user-questions.json)", () => {
  it("has at least 30 questions, none of the demo's own, over many sections", async () => {
    const { DEMO_QUESTIONS, MEMORY_DEMO_QUESTIONS } = await import("../cli/demo-questions.js");
    const held = loadEvalQuestions(USER_EVAL_FILE);
    expect(held.length).toBeGreaterThanOrEqual(30);
    expect(new Set(held.map((q) => q.page.split("/")[1])).size).toBeGreaterThanOrEqual(12);
    const demo = new Set([...DEMO_QUESTIONS, ...Object.values(MEMORY_DEMO_QUESTIONS)]);
    expect(held.filter((q) => demo.has(q.question))).toEqual([]);
  });
});

describe("loadEvalQuestions", () => {
  it("names every problem of a bad file with its place", () => {
    const file = join(mkdtempSync(join(tmpdir(), "atrium-eval-")), "q.json");
    writeFileSync(
      file,
      JSON.stringify({
        questions: [
          { id: "a", question: "Q?", page: "cli/x.mdx", fact: "f" },
          { id: "a", question: "", page: "/x.mdx", fact: "f" },
        ],
      }),
    );
    let error: unknown;
    try {
      loadEvalQuestions(file);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      {
        path: [file, "questions", "0", "page"],
        message: '"cli/x.mdx" is not a page path such as /guides/x.mdx',
      },
      { path: [file, "questions", "1", "question"], message: "expected a non-empty string" },
      { path: [file, "questions", "1", "id"], message: 'duplicate id "a"' },
    ]);
  });
});

describe("grade", () => {
  it("finds the fact loosely and the page exactly", () => {
    const question = { id: "p", question: "Q?", page: "/cli/preview.mdx", fact: "mint dev" };
    expect(
      grade(question, "Run `Mint  dev` in the folder.", [{ path: "/cli/preview.mdx", verified: true }]),
    ).toEqual({
      answerCorrect: true,
      citationCorrect: true,
      citationTop1: true,
    });
    // The right page cited second: a citation, but not the top-1.
    expect(
      grade(question, "Run mint dev.", [
        { path: "/cli/index.mdx", verified: true },
        { path: "/cli/preview.mdx", verified: true },
      ]),
    ).toEqual({ answerCorrect: true, citationCorrect: true, citationTop1: false });
    expect(grade(question, "Run mint.", [{ path: "/cli/index.mdx", verified: true }])).toEqual({
      answerCorrect: false,
      citationCorrect: false,
      citationTop1: false,
    });
  });
});
