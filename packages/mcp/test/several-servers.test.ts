// Several real servers at once whose tool names collide: only the colliding names get the
// server prefix, and each prefixed tool reaches its own server.
import { afterAll, describe, expect, it } from "vitest";
import { connectMcpServers } from "../src/index.js";
import { everythingStdio, fixtureServer, isAlive, removeBundles } from "./servers.js";

const signal = () => new AbortController().signal;

afterAll(removeBundles);

describe("several servers with colliding tool names", () => {
  it("prefixes only the colliding names and routes each call to its server", async () => {
    const connection = await connectMcpServers({
      everything: everythingStdio,
      sample: fixtureServer("serve-sample-tools.ts"),
    });
    const pids = Object.values(connection.clients).map((client) => client.pid!);
    try {
      expect(connection.errors).toEqual([]);
      const names = connection.tools.map((tool) => tool.name);
      expect(names.filter((name) => name.endsWith("echo"))).toEqual(["everything_echo", "sample_echo"]);
      expect(names).toContain("get_sum");
      expect(names).toContain("add");
      expect(names).not.toContain("echo");
      const tool = (name: string) => connection.tools.find((candidate) => candidate.name === name)!;
      expect(tool("everything_echo")).toMatchObject({ server: "everything", mcpName: "echo" });
      expect(tool("sample_echo")).toMatchObject({ server: "sample", mcpName: "echo" });
      expect(await tool("everything_echo").execute({ message: "hi" }, { signal: signal() })).toBe("Echo: hi");
      expect(await tool("sample_echo").execute({ message: "hi" }, { signal: signal() })).toBe("hi");
      expect(await tool("add").execute({ a: 2, b: 3 }, { signal: signal() })).toBe("5");
    } finally {
      await connection.close();
    }
    expect(pids.map(isAlive)).toEqual([false, false]);
  });
});
