export * from "./agents/index.js";
export * from "./continuation/index.js";
export * from "./dialects/index.js";
export * from "./executors/index.js";
export * from "./from-spec.js";
export * from "./models/index.js";
export * from "./tools/index.js";
