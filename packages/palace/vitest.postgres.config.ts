import { atriumVitestConfig } from "../../tests/vitest.shared.ts";

/**
 * The palace's behaviour suites again, on PostgreSQL: `TestPalaces` gives every palace a fresh
 * database of a throwaway server (test-support/postgres-server.ts). Together with the default
 * run on SQLite, these are the contract both stores pass. Left out: what only SQLite has (its
 * file's crash and multi-process tests, upgrades of old palace.sqlite files).
 */
export default atriumVitestConfig({
  include: [
    "src/palace.test.ts",
    "src/palace-input.test.ts",
    "src/palace-kg.test.ts",
    "src/memory-store.test.ts",
    "src/repair.test.ts",
    "src/search/**/*.test.ts",
    "src/vectors/**/*.test.ts",
    "src/view/**/*.test.ts",
    "src/tools/**/*.test.ts",
    "src/layers/**/*.test.ts",
    "src/mining/mine*.test.ts",
    "src/export/**/*.test.ts",
    "src/diary/**/*.test.ts",
    "src/tunnels/**/*.test.ts",
    "src/mcp/**/*.test.ts",
  ],
  // What only SQLite has: upgrades of old palace.sqlite files, its file's modes, and text holding
  // NUL (PostgreSQL's text cannot; the PostgreSQL run of palace-input.test.ts checks the refusal).
  exclude: ["src/mining/mine-robust.test.ts", "src/export/export-nasty.test.ts", "src/palace-modes.test.ts"],
  env: { ATRIUM_PALACE_STORE: "postgres" },
});
