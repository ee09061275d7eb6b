import { describe, expect, it } from "vitest";
import { titleMatch } from "./title-match.js";

describe("titleMatch", () => {
  it("is the share of query words in the file name or the title", () => {
    expect(titleMatch("/customize/custom-domain.mdx", "Custom domain", ["custom", "domain"])).toBe(1);
    expect(titleMatch("/customize/custom-domain.mdx", undefined, ["set", "custom", "domain", "dns"])).toBe(
      0.5,
    );
    expect(titleMatch("/dashboard/sso.mdx", "Single sign-on (SSO)", ["single", "sign", "saml"])).toBe(2 / 3);
    expect(titleMatch("/index.mdx", "Introduction", ["custom", "domain"])).toBe(0);
    expect(titleMatch("/index.mdx", "Introduction", [])).toBe(0);
  });

  it("matches a word and its longer forms, not short fragments", () => {
    expect(titleMatch("/guides/domains.mdx", undefined, ["domain"])).toBe(1);
    expect(titleMatch("/guides/api.mdx", undefined, ["apis"])).toBe(0);
    expect(titleMatch("/zh/指南.mdx", "指南", ["指南"])).toBe(1);
  });
});
