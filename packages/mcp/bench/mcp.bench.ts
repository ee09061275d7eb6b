/**
 * Round trip of a trivial tool (`echo`, the sample tool set served by this package's own
 * `serveMcp` / `serveMcpHttp` in a child process) through `connectMcpServers`' Tool, against
 * calling the same tool's `execute` in process. server-everything's echo over stdio is
 * measured too, as a server this package did not write.
 */
import { spawn } from "node:child_process";
import { compared, sampleMs, writeBenchResults } from "@atrium/bench";
import { connectMcpServers, type McpServerConfig } from "../src/index.js";
import { echo } from "../test/fixtures/sample-tools.js";
import { bundledFixture, everythingStdio, removeBundles } from "../test/servers.js";

const ITERATIONS = { iterations: 300, warmup: 30 };
const context = { signal: new AbortController().signal };
const input = { message: "hi" };

async function roundTrip(config: McpServerConfig, toolName = "echo"): Promise<number> {
  const connection = await connectMcpServers({ bench: config });
  if (connection.errors.length) throw connection.errors[0]!.error;
  const tool = connection.tools.find((candidate) => candidate.name === toolName)!;
  try {
    return await sampleMs(() => tool.execute(input, context), ITERATIONS);
  } finally {
    await connection.close();
  }
}

async function startHttpServer(mode: "sse" | "json"): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [bundledFixture("serve-sample-tools-http.ts"), mode], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding("utf8").once("data", (line: string) => resolve(line.trim()));
    child.once("exit", (code) => reject(new Error(`HTTP server exited with ${code}`)));
  });
  return { url, stop: () => child.kill("SIGTERM") };
}

try {
  // One in-process call is below the timer's resolution: time a thousand and divide.
  const batch = 1_000;
  const inProcess =
    (await sampleMs(async () => {
      for (let i = 0; i < batch; i++) await echo.execute(input, context);
    }, ITERATIONS)) / batch;
  const stdio = await roundTrip({
    command: process.execPath,
    args: [bundledFixture("serve-sample-tools.ts")],
  });
  const sse = await startHttpServer("sse");
  const overHttp = await roundTrip({ url: sse.url }).finally(sse.stop);
  const json = await startHttpServer("json");
  const overHttpJson = await roundTrip({ url: json.url }).finally(json.stop);
  const everything = await roundTrip(everythingStdio);

  writeBenchResults("mcp", [
    compared("mcp.stdio_call_ms", stdio, "ms", "in-process tool.execute", inProcess),
    compared("mcp.http_call_ms", overHttp, "ms", "in-process tool.execute", inProcess),
    compared("mcp.http_call_ms.json_response", overHttpJson, "ms", "in-process tool.execute", inProcess),
    compared(
      "mcp.stdio_call_ms.server_everything_echo",
      everything,
      "ms",
      "in-process tool.execute",
      inProcess,
    ),
  ]);
} finally {
  removeBundles();
}
