export * from "./agent-contract.js";
export * from "./code-executor-contract.js";
export * from "./contract.js";
export * from "./embedding-contract.js";
export * from "./memory-store-contract.js";
export { describeContract } from "./vitest.js";
