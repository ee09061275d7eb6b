import { writeFileSync } from "node:fs";
import { searchLatencyRows } from "./search-latency.js";
const rows = [
  ...(await searchLatencyRows(10_000, "10k", (line) => process.stderr.write(`${line}\n`))),
  ...(await searchLatencyRows(100_000, "100k", (line) => process.stderr.write(`${line}\n`))),
];
writeFileSync(process.argv[2] as string, JSON.stringify(rows, null, 2));
process.exit(0);
