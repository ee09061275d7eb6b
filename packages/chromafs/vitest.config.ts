import { atriumVitestConfig } from "../../tests/vitest.shared.ts";

// The MCP SDK's dependencies eventsource, eventsource-parser and pkce-challenge publish a "source"
// export condition pointing at TypeScript that Node cannot load, so vite transforms them.
export default atriumVitestConfig({
  server: {
    deps: { inline: [/@modelcontextprotocol\/sdk/, "eventsource", "eventsource-parser", "pkce-challenge"] },
  },
});
