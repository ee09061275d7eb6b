import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { processOwner } from "./process-owner.js";

const id = (flag: string) => execFileSync("id", [flag], { encoding: "utf8" }).trim();

describe("processOwner", () => {
  it("is the user and group the process runs as, named as coreutils' id names them", () => {
    // ChromaFs printed `root root` whoever ran it, so the oracle failed for any other user
    expect(processOwner()).toEqual({
      user: id("-un"),
      group: id("-gn"),
      uid: Number(id("-u")),
      gid: Number(id("-g")),
    });
  });
});
