import { isFatalError } from "@atrium/spec";
import { expect, it } from "vitest";
import {
  isPalaceError,
  KnowledgeGraphConflictError,
  KnowledgeGraphFormatError,
  KnowledgeGraphNotFoundError,
} from "../errors.js";

it("sits in the palace's error family; only a format error ends a run", () => {
  const cases = [
    new KnowledgeGraphNotFoundError("a"),
    new KnowledgeGraphConflictError("b"),
    new KnowledgeGraphFormatError("c"),
  ];
  expect(cases.map((error) => [error.name, error.palaceCode, error.code, isFatalError(error)])).toEqual([
    ["KnowledgeGraphNotFoundError", "palace/not-found", "NOT_FOUND", false],
    ["KnowledgeGraphConflictError", "palace/conflict", "CONFIG", false],
    ["KnowledgeGraphFormatError", "palace/format", "CONFIG", true],
  ]);
  expect(cases.every((error) => isPalaceError(error))).toBe(true);
});
