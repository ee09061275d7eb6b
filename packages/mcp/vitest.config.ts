import { atriumVitestConfig } from "../../tests/vitest.shared.ts";

// Some npm packages (eventsource, eventsource-parser, pkce-challenge), imported by the MCP SDK,
// also publish a "source"
// export condition pointing at their TypeScript; Node cannot load those externally, so vite
// transforms them instead.
export default atriumVitestConfig({
  server: {
    deps: { inline: [/@modelcontextprotocol\/sdk/, "eventsource", "eventsource-parser", "pkce-challenge"] },
  },
});
