import { atriumVitestConfig } from "./vitest.shared.ts";

export default atriumVitestConfig({
  include: ["e2e/**/*.test.ts", "ci/**/*.test.ts", "repo/**/*.test.ts", "install/**/*.test.ts"],
});
