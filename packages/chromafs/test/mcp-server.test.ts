import { fileURLToPath } from "node:url";
import { hashToken, McpClient, parseTokens } from "@atrium/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliArgs } from "../../../tests/test-target.ts";
import { serveDocsMcpHttp } from "../src/mcp/docs-mcp-server.js";
import { LocalFolderStore } from "../src/store/local-folder-store.js";
import { type SmallDocsDir, writeSmallDocs } from "./fixtures/small-docs.js";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

describe("atrium-docs mcp", () => {
  let dir: SmallDocsDir;
  beforeAll(() => {
    dir = writeSmallDocs();
  });
  afterAll(() => dir.remove());

  it("serves bash and search over stdio to a real MCP client", async () => {
    const client = await McpClient.connect("docs", {
      command: process.execPath,
      args: [...cliArgs(PACKAGE_DIR), "mcp", "--dir", dir.root, "--groups", "staff"],
      cwd: PACKAGE_DIR,
    });
    try {
      // Both only read: MCP would take a tool without annotations for one that may destroy.
      expect((await client.listTools()).map(({ name, annotations }) => ({ name, annotations }))).toEqual([
        { name: "bash", annotations: { readOnlyHint: true, openWorldHint: false } },
        { name: "search", annotations: { readOnlyHint: true, openWorldHint: false } },
      ]);
      const result = await client.callTool("bash", { command: "grep -rn Falcon / ; ls /secret" });
      expect(result.structuredContent).toEqual({
        stdout: "/internal/roadmap.md:5:Project Falcon ships in Q3.\n",
        stderr: "ls: cannot access '/secret': No such file or directory\n",
        exitCode: 2,
      });
      expect(await client.callTool("search", { query: "Falcon" })).toMatchObject({
        content: [{ type: "text", text: "/internal/roadmap.md: Project Falcon ships in Q3.\n" }],
      });
      expect(await client.callTool("bash", { command: "" })).toMatchObject({ isError: true });
    } finally {
      await client.close();
    }
  }, 60_000);

  it("serves streamable HTTP, and clients never share /tmp", async () => {
    const served = await serveDocsMcpHttp({ store: new LocalFolderStore(dir.root) });
    const first = await McpClient.connect("a", { type: "http", url: served.url });
    const second = await McpClient.connect("b", { type: "http", url: served.url });
    try {
      await first.callTool("bash", { command: "echo mine > /tmp/note" });
      expect(
        (await second.callTool("bash", { command: "ls /tmp; cat /internal/roadmap.md" })).structuredContent,
      ).toEqual({
        stdout: "",
        stderr: "cat: /internal/roadmap.md: No such file or directory\n",
        exitCode: 1,
      });
    } finally {
      await first.close();
      await second.close();
      await served.close();
    }
  });

  it("keeps a client's /tmp and directory for its whole session, and refuses fields the schema forbids", async () => {
    const served = await serveDocsMcpHttp({ store: new LocalFolderStore(dir.root) });
    const client = await McpClient.connect("a", { type: "http", url: served.url });
    try {
      await client.callTool("bash", { command: "echo mine > /tmp/note; cd /guides" });
      expect((await client.callTool("bash", { command: "cat /tmp/note; ls" })).structuredContent).toEqual({
        stdout: "mine\ndeploy.md\nquickstart.md\n",
        stderr: "",
        exitCode: 0,
      });
      expect(await client.callTool("bash", { command: "ls", extra: true })).toMatchObject({
        content: [{ type: "text", text: 'Invalid input for tool "bash": Unrecognized key: "extra"' }],
        isError: true,
      });
    } finally {
      await client.close();
      await served.close();
    }
  });

  it("with tokens, each client sees the tree its token's groups allow, in one server", async () => {
    const staffToken = "staff-token-0123456789";
    const guestToken = "guest-token-0123456789";
    const auth = parseTokens(
      JSON.stringify({
        tokens: {
          [hashToken(staffToken)]: { identity: "sam", groups: ["staff"] },
          [hashToken(guestToken)]: { identity: "guest", groups: [] },
        },
      }),
      "test tokens",
    );
    const served = await serveDocsMcpHttp({ store: new LocalFolderStore(dir.root), auth });
    const connect = (token: string) =>
      McpClient.connect(token, {
        type: "http",
        url: served.url,
        headers: { authorization: `Bearer ${token}` },
      });
    const staff = await connect(staffToken);
    const guest = await connect(guestToken);
    try {
      const command = { command: "ls /internal; grep -rl Falcon /" };
      expect((await staff.callTool("bash", command)).structuredContent).toEqual({
        stdout: "roadmap.md\nwelcome.md\n/internal/roadmap.md\n",
        stderr: "",
        exitCode: 0,
      });
      expect((await guest.callTool("bash", command)).structuredContent).toEqual({
        stdout: "welcome.md\n",
        stderr: "",
        exitCode: 1,
      });
      expect(await guest.callTool("search", { query: "Falcon" })).toMatchObject({
        content: [{ type: "text", text: "no matches\n" }],
      });
      const anonymous = await fetch(served.url, { method: "POST", body: "{}" });
      expect([anonymous.status, anonymous.headers.get("www-authenticate")]).toEqual([
        401,
        'Bearer realm="mcp"',
      ]);
    } finally {
      await staff.close();
      await guest.close();
      await served.close();
    }
  });
});
