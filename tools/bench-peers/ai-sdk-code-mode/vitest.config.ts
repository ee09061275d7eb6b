import { atriumVitestConfig } from "../../../tests/vitest.shared.ts";

export default atriumVitestConfig();
