export * from "./agent-event.js";
export * from "./code-executor.js";
export * from "./errors.js";
export * from "./memory-store.js";
export * from "./messages.js";
export * from "./model.js";
export * from "./provider-spec.js";
export * from "./tool.js";
