export * from "./bm25.js";
export * from "./rank-fusion.js";
export * from "./score-fusion.js";
export * from "./tokenize.js";
