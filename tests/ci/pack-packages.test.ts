// `npm run pack` (.ci/pack-packages.mjs) prints, for each package, the tarballs its install needs:
// its own and those of the @atrium packages it depends on, transitively, since none of them is
// on a registry. An optional peer is left out, as a user who did not name it goes without it.
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script of .ci/, without type declarations
import { tarballsFor } from "../../.ci/pack-packages.mjs";

const pack = (name: string, manifest: Record<string, unknown> = {}) => ({
  tarball: `/d/${name.replace("@atrium/", "atrium-")}-0.1.0.tgz`,
  manifest: { name, version: "0.1.0", ...manifest },
});

const packs = [
  pack("@atrium/spec", {
    peerDependencies: { vitest: "^4" },
    peerDependenciesMeta: { vitest: { optional: true } },
  }),
  pack("@atrium/kit", { dependencies: { "@atrium/spec": "0.1.0" } }),
  pack("@atrium/mcp", { dependencies: { "@atrium/spec": "0.1.0", zod: "^4" } }),
  pack("@atrium/agent", {
    dependencies: { "@atrium/kit": "0.1.0", "@atrium/mcp": "0.1.0", "@atrium/spec": "0.1.0" },
  }),
  pack("@atrium/chroma", { dependencies: { "@atrium/spec": "0.1.0" } }),
  pack("@atrium/chromafs", {
    dependencies: { "@atrium/mcp": "0.1.0" },
    peerDependencies: { "@atrium/chroma": "0.1.0" },
    peerDependenciesMeta: { "@atrium/chroma": { optional: true } },
  }),
  pack("@atrium/needs-peer", { peerDependencies: { "@atrium/chroma": "0.1.0" } }),
];

describe("pack-packages: each package's install line", () => {
  it("passes the package's own tarball first, then every @atrium one it needs, transitively", () => {
    expect(tarballsFor(packs, "@atrium/agent")).toEqual([
      "/d/atrium-agent-0.1.0.tgz",
      "/d/atrium-kit-0.1.0.tgz",
      "/d/atrium-spec-0.1.0.tgz",
      "/d/atrium-mcp-0.1.0.tgz",
    ]);
    expect(tarballsFor(packs, "@atrium/spec")).toEqual(["/d/atrium-spec-0.1.0.tgz"]);
  });

  it("leaves an optional peer out and keeps a required one", () => {
    expect(tarballsFor(packs, "@atrium/chromafs")).toEqual([
      "/d/atrium-chromafs-0.1.0.tgz",
      "/d/atrium-mcp-0.1.0.tgz",
      "/d/atrium-spec-0.1.0.tgz",
    ]);
    expect(tarballsFor(packs, "@atrium/needs-peer")).toEqual([
      "/d/atrium-needs-peer-0.1.0.tgz",
      "/d/atrium-chroma-0.1.0.tgz",
      "/d/atrium-spec-0.1.0.tgz",
    ]);
  });
});
