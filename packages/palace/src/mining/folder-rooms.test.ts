import { describe, expect, it } from "vitest";
import { meaningfulFolders, planFolderRooms } from "./folder-rooms.js";

describe("planFolderRooms", () => {
  it("files each path under its first meaningful folder, passing over src, packages and the like", () => {
    const plan = planFolderRooms(
      [
        "packages/billing/src/invoice.ts",
        "packages/auth/src/login.ts",
        "docs/intro.md",
        "README.md",
        "tests/e2e.ts",
      ].map((path) => ({ path, weight: 1 })),
      0.5,
    );
    expect([...plan]).toEqual([
      ["packages/billing/src/invoice.ts", "billing"],
      ["packages/auth/src/login.ts", "auth"],
      ["docs/intro.md", "docs"],
      ["README.md", undefined],
      ["tests/e2e.ts", "tests"],
    ]);
  });

  it("splits a room past its share by the next folder, naming rooms apart only where needed", () => {
    const files = [
      ...["a", "b", "c"].map((name) => ({ path: `web/api/${name}.ts`, weight: 1 })),
      ...["a", "b", "c"].map((name) => ({ path: `web/ui/${name}.ts`, weight: 1 })),
      { path: "web/index.ts", weight: 1 },
      ...["a", "b", "c", "d"].map((name) => ({ path: `server/api/${name}.ts`, weight: 1 })),
      { path: "notes/todo.md", weight: 1 },
    ];
    const plan = planFolderRooms(files, 0.3);
    expect(plan.get("web/api/a.ts")).toBe("web-api");
    expect(plan.get("web/ui/a.ts")).toBe("ui");
    expect(plan.get("web/index.ts")).toBe("web");
    expect(plan.get("server/api/a.ts")).toBe("server-api");
    expect(plan.get("notes/todo.md")).toBe("notes");
    // Under a looser share nothing needs splitting.
    expect(new Set(planFolderRooms(files, 0.6).values())).toEqual(new Set(["web", "server", "notes"]));
  });

  it("keeps a folder whole when it cannot be split further", () => {
    const files = Array.from({ length: 10 }, (_, index) => ({ path: `big/${index}.md`, weight: 1 }));
    expect(new Set(planFolderRooms(files, 0.2).values())).toEqual(new Set(["big"]));
  });
});

describe("meaningfulFolders", () => {
  it("slugs folder names and leaves out generic ones and the file", () => {
    expect(meaningfulFolders("src/Payment Gateway/lib/stripe_v2/x.ts")).toEqual([
      "payment-gateway",
      "stripe-v2",
    ]);
  });
});
