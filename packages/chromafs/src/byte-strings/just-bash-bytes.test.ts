import {
  decodeBytesToUtf8,
  encodeUtf8ToBytes,
  latin1FromBytes,
  stdoutAsBytes,
  unsafeBytesFromLatin1,
} from "just-bash";
import { describe, expect, it } from "vitest";
import { asBytesOutput, decodeStdin, encodeText } from "./just-bash-bytes.js";

const TEXTS = [
  "",
  "plain ASCII\n",
  "é中 x\n",
  "emoji \u{1F600} and \uE000",
  "lone \uD800 surrogate",
  "\u0000\u00ff",
];
/** Byte strings: UTF-8, not UTF-8 (a lone 0xff, a cut sequence), and a string that is no byte string. */
const BYTE_STRINGS = [
  "",
  "abc",
  "\u00c3\u00a9\u00e4\u00b8\u00ad",
  "\u00ff\u00fe",
  "ok \u00e4\u00b8",
  "already text: é中",
];

describe("just-bash byte strings, natively", () => {
  it("encodes text to the same byte string as just-bash's encodeUtf8ToBytes", () => {
    for (const text of TEXTS) {
      expect(latin1FromBytes(encodeText(text)), JSON.stringify(text)).toBe(
        latin1FromBytes(encodeUtf8ToBytes(text)),
      );
    }
    expect(latin1FromBytes(encodeText("é"))).toBe("\u00c3\u00a9");
  });

  it("decodes standard input as just-bash's decodeBytesToUtf8 does", () => {
    for (const raw of [...BYTE_STRINGS, ...TEXTS.map((text) => latin1FromBytes(encodeText(text)))]) {
      const bytes = unsafeBytesFromLatin1(raw);
      expect(decodeStdin(bytes), JSON.stringify(raw)).toBe(decodeBytesToUtf8(bytes));
    }
    expect(decodeStdin(unsafeBytesFromLatin1("\u00c3\u00a9"))).toBe("é");
    expect(decodeStdin(unsafeBytesFromLatin1("\u00ff\u00fe"))).toBe("\u00ff\u00fe");
  });

  it("hands a text result over as its UTF-8 bytes, and a byte result as it is", () => {
    const text = { stdout: "é中\n", stderr: "warn\n", exitCode: 1 };
    const bytes = asBytesOutput(text);
    expect(bytes).toEqual({
      stdout: "\u00c3\u00a9\u00e4\u00b8\u00ad\n",
      stderr: "warn\n",
      exitCode: 1,
      stdoutKind: "bytes",
      stdoutEncoding: "binary",
    });
    expect(latin1FromBytes(stdoutAsBytes(bytes))).toBe(latin1FromBytes(stdoutAsBytes(text)));
    expect(asBytesOutput(bytes)).toBe(bytes);
    const empty = { stdout: "", stderr: "", exitCode: 1 };
    expect(asBytesOutput(empty)).toBe(empty);
  });
});
