import { atriumVitestConfig } from "../../tests/vitest.shared.ts";

// The LoCoMo harness (bench/locomo) and the test servers (test-support) are tested beside their code too.
export default atriumVitestConfig({
  include: ["src/**/*.test.ts", "test/**/*.test.ts", "test-support/**/*.test.ts", "bench/**/*.test.ts"],
});
