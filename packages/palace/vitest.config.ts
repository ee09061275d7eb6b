import { atriumVitestConfig } from "../../tests/vitest.shared.ts";

// The LoCoMo harness (bench/locomo) is tested beside its code too.
export default atriumVitestConfig({
  include: ["src/**/*.test.ts", "test/**/*.test.ts", "bench/**/*.test.ts"],
});
