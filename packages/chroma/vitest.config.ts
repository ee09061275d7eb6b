import { atriumVitestConfig } from "../../tests/vitest.shared.ts";

const config = atriumVitestConfig({
  server: { deps: { inline: ["ai", /@ai-sdk\//, "eventsource-parser"] } },
});
// Only the AI SDK embedding test loads `ai`. Vitest hands ssr.resolve.conditions to its workers
// as `node --conditions`; with "module" among them Node loads @opentelemetry/api (under the AI
// SDK) from a build whose extension-less imports it cannot resolve. eventsource-parser publishes
// a "source" condition pointing at .ts files, so Vite must compile it rather than Node load it.
const ssrResolve = config.ssr?.resolve;
if (ssrResolve?.conditions) ssrResolve.conditions = ssrResolve.conditions.filter((c) => c !== "module");

export default config;
