import { atriumVitestConfig } from "../../tests/vitest.shared.ts";

const config = atriumVitestConfig({
  server: { deps: { inline: ["ai", /@ai-sdk\//, "eventsource-parser"] } },
});
// Vitest hands ssr.resolve.conditions to its workers as `node --conditions`. With "module"
// among them, Node loads @opentelemetry/api (used by the AI SDK and the agent's spans) from a
// build whose extension-less imports it cannot resolve; plain Node uses the CommonJS entry.
// And eventsource-parser (under the AI SDK) publishes a "source" condition pointing at .ts
// files, so Vite must compile it rather than Node load it.
const ssrResolve = config.ssr?.resolve;
if (ssrResolve?.conditions) ssrResolve.conditions = ssrResolve.conditions.filter((c) => c !== "module");

export default config;
