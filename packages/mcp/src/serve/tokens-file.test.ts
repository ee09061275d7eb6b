import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "@atrium/spec";
import { afterAll, describe, expect, it } from "vitest";
import { hashNewToken, hashToken, loadTokensFile, parseTokens } from "./tokens-file.js";

const ALICE = "alice-token-0123456789";
const EXPECTED = 'expected {"tokens": {"<sha256 hex>": {"identity": "alice", "groups": ["staff"]}}}';

describe("tokens file", () => {
  const dir = mkdtempSync(join(tmpdir(), "atrium-tokens-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("hashes a token to its SHA-256 in lowercase hex, as sha256sum does", () => {
    expect(hashToken("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hashNewToken(ALICE)).toBe(hashToken(ALICE));
    expect(() => hashNewToken("short")).toThrow(
      new ConfigError("a token needs at least 16 characters, got 5; make one with `openssl rand -hex 32`"),
    );
    expect(() => hashNewToken("has a space in the middle")).toThrow(
      new ConfigError("a token must not contain spaces or line breaks"),
    );
  });

  it("maps each token, never stored in clear, to its identity and groups", async () => {
    const path = join(dir, "tokens.json");
    writeFileSync(
      path,
      JSON.stringify({
        tokens: {
          [hashToken(ALICE)]: { identity: "alice", groups: ["staff", "beta"] },
          [hashToken("bob-token-0123456789")]: { identity: "bob" },
        },
      }),
    );
    const auth = loadTokensFile(path);
    expect(auth.size).toBe(2);
    expect(await auth.verify(ALICE)).toEqual({ name: "alice", groups: ["staff", "beta"] });
    expect(await auth.verify("bob-token-0123456789")).toEqual({ name: "bob", groups: [] });
    expect(await auth.verify(hashToken(ALICE))).toBeUndefined(); // the hash itself is no token
    expect(await auth.verify("")).toBeUndefined();
  });

  it("refuses every mistake naming the file, the entry and the expected shape", async () => {
    const hash = hashToken(ALICE);
    const cases: [string, string][] = [
      ["[]", "the file must hold a JSON object"],
      ['{"tokens": {}, "users": []}', 'unknown field "users"'],
      ['{"tokens": []}', '"tokens" must be an object'],
      [
        JSON.stringify({ tokens: { [ALICE]: { identity: "alice" } } }),
        `tokens["${ALICE}"]: a key must be a token's SHA-256 as 64 lowercase hex digits (atrium-docs hash-token prints it)`,
      ],
      [JSON.stringify({ tokens: { [hash]: "alice" } }), `tokens["${hash}"] must be an object`],
      [
        JSON.stringify({ tokens: { [hash]: { identity: "" } } }),
        `tokens["${hash}"].identity must be a non-empty string naming who holds the token`,
      ],
      [
        JSON.stringify({ tokens: { [hash]: { identity: "alice", groups: "staff" } } }),
        `tokens["${hash}"].groups must be an array of non-empty strings`,
      ],
      [
        JSON.stringify({ tokens: { [hash]: { identity: "alice", group: ["staff"] } } }),
        `tokens["${hash}"]: unknown field "group"`,
      ],
    ];
    for (const [text, problem] of cases) {
      expect(() => parseTokens(text, "tokens file t.json")).toThrow(
        new ConfigError(`tokens file t.json: ${problem}; ${EXPECTED}`),
      );
    }
    expect(() => parseTokens("{", "tokens file t.json")).toThrow(
      new ConfigError(
        "tokens file t.json: not valid JSON (Expected property name or '}' in JSON at position 1)",
      ),
    );
    const missing = join(dir, "missing.json");
    expect(() => loadTokensFile(missing)).toThrow(
      new ConfigError(`tokens file ${missing}: ENOENT: no such file or directory, stat '${missing}'`),
    );
  });
});
