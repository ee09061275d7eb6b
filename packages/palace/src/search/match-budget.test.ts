import { afterAll, describe, expect, it } from "vitest";
import { TestPalaces } from "../../test/test-palaces.js";
import { palaceCore } from "../core/palace-core.js";
import type { DrawerDraft } from "../drawers/drawer.js";
import { withinMatchBudget } from "./match-budget.js";

const palaces = new TestPalaces();
afterAll(() => palaces.cleanup());

/** One drawer per text, each its own source (no neighbour context shared between them). */
const drafts = (texts: string[], prefix: string): DrawerDraft[] =>
  texts.map((content, at) => ({ content, wing: "w", room: "r", source: `${prefix}-${at}` }));

describe("withinMatchBudget", () => {
  it("keeps terms rarest first while their matched rows fit the budget, always the rarest, in query order", async () => {
    const palace = await palaces.open();
    // "boat" in 6 drawers, "harbour" in 3, "lighthouse" in 1, "zeppelin" in none.
    await palace.file(
      drafts(
        [
          "boat harbour lighthouse",
          "boat harbour quay",
          "boat harbour pier",
          "boat trip",
          "boat engine",
          "boat paint",
          "garden shed",
        ],
        "a",
      ),
    );
    const { db, registry } = palaceCore(palace);
    const terms = ["boat", "harbour", "lighthouse", "zeppelin"];
    expect(withinMatchBudget(registry.lexical, db, terms, 100)).toEqual(terms);
    expect(withinMatchBudget(registry.lexical, db, terms, 10)).toEqual(terms);
    expect(withinMatchBudget(registry.lexical, db, terms, 8)).toEqual(["harbour", "lighthouse", "zeppelin"]);
    expect(withinMatchBudget(registry.lexical, db, terms, 3)).toEqual(["lighthouse", "zeppelin"]);
    expect(withinMatchBudget(registry.lexical, db, ["boat", "harbour"], 3)).toEqual(["harbour"]);
    // Counts stop past the budget: two terms both past it tie, and the first in the query stays.
    expect(withinMatchBudget(registry.lexical, db, ["boat", "harbour"], 0)).toEqual(["boat"]);
    expect(withinMatchBudget(registry.lexical, db, ["boat"], 0)).toEqual(["boat"]);
    expect(withinMatchBudget(registry.lexical, db, [], 0)).toEqual([]);
    // Counted by FTS5 itself, so "boats" stems to "boat" and counts as common.
    expect(withinMatchBudget(registry.lexical, db, ["boats", "harbour"], 5)).toEqual(["harbour"]);
  });

  it("counts again after a write: a term that became common is left out", async () => {
    const palace = await palaces.open();
    await palace.file(drafts(["kayak river", "kayak lake", "canoe lake"], "a"));
    const { db, registry } = palaceCore(palace);
    expect(withinMatchBudget(registry.lexical, db, ["kayak", "canoe"], 3)).toEqual(["kayak", "canoe"]);
    await palace.file(drafts(["canoe one", "canoe two", "canoe three"], "b"));
    expect(withinMatchBudget(registry.lexical, db, ["kayak", "canoe"], 3)).toEqual(["kayak"]);
  });
});
