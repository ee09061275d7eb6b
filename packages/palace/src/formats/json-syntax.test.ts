import { describe, expect, it } from "vitest";
import { ExportParseError } from "../errors.js";
import { jsonSyntaxErrorOffset, lineColumn, parseJsonText } from "./json-syntax.js";

describe("jsonSyntaxErrorOffset", () => {
  it("finds nothing wrong in valid JSON", () => {
    for (const text of [
      '{"a":[1,-2.5e3,true,false,null,"x\\u00e9\\n"]}',
      "[]",
      " {} ",
      '"s"',
      "0",
      "[[[[]]]]",
    ]) {
      expect(jsonSyntaxErrorOffset(text)).toBeUndefined();
    }
  });

  it("points at the first offending character", () => {
    expect(jsonSyntaxErrorOffset('{"a":1 "b":2}')).toBe(7);
    expect(jsonSyntaxErrorOffset('{"a":1,}')).toBe(7);
    expect(jsonSyntaxErrorOffset("[1,2")).toBe(4);
    expect(jsonSyntaxErrorOffset("[1]x")).toBe(3);
    expect(jsonSyntaxErrorOffset('{"a":tru}')).toBe(5);
    expect(jsonSyntaxErrorOffset('["a\\x"]')).toBe(3);
    expect(jsonSyntaxErrorOffset('["a\nb"]')).toBe(3);
    expect(jsonSyntaxErrorOffset("[01]")).toBe(2);
    expect(jsonSyntaxErrorOffset("")).toBe(0);
  });

  it("agrees with JSON.parse on which texts are valid", () => {
    const texts = [
      '{"a":{"b":[1,{"c":"d"}]}}',
      '{"a":}',
      "[1,,2]",
      "{'a':1}",
      '{"a" 1}',
      "[-]",
      "[1.]",
      "[1e5]",
      "nul",
      '"\\ud83d\\ude00"',
    ];
    for (const text of texts) {
      let valid = true;
      try {
        JSON.parse(text);
      } catch {
        valid = false;
      }
      expect(jsonSyntaxErrorOffset(text) === undefined, text).toBe(valid);
    }
  });

  it("survives nesting far deeper than a recursive parser would", () => {
    const deep = "[".repeat(100_000) + "]".repeat(99_999);
    expect(jsonSyntaxErrorOffset(deep)).toBe(deep.length);
  });
});

describe("parseJsonText", () => {
  it("names the line and column of a missing comma", () => {
    const text = '[\n  {"a": 1}\n  {"b": 2}\n]';
    const error = (() => {
      try {
        parseJsonText(text);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ExportParseError);
    expect((error as ExportParseError).position).toBe("line 3, column 3");
    expect((error as ExportParseError).message).toBe("line 3, column 3: invalid JSON: unexpected '{'");
  });

  it("says when the text ends too early", () => {
    expect(() => parseJsonText('{"a": [1, 2')).toThrow(
      "line 1, column 12: invalid JSON: the text ends too early",
    );
  });

  it("returns the value of valid JSON", () => {
    expect(parseJsonText('{"a":[1]}')).toEqual({ a: [1] });
  });
});

describe("lineColumn", () => {
  it("counts lines and columns from 1", () => {
    expect(lineColumn("ab\ncd\nef", 0)).toBe("line 1, column 1");
    expect(lineColumn("ab\ncd\nef", 4)).toBe("line 2, column 2");
    expect(lineColumn("ab\ncd\nef", 6)).toBe("line 3, column 1");
  });
});
