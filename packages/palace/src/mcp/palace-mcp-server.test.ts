import { McpClient, type ServedMcpHttp } from "@atrium/mcp";
import { countTokens } from "gpt-tokenizer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestPalaces } from "../../test/test-palaces.js";
import type { Palace } from "../palace.js";
import { palaceTools } from "../tools/palace-tools.js";
import { servePalaceMcpHttp } from "./palace-mcp-server.js";

const IDENTITY = "I am Ada Lovelace, a mathematician who writes notes on engines.";

const DRAFTS = [
  {
    content: "Alice moved to Lisbon in March 2023 and loves riding tram 28.",
    wing: "alice",
    room: "travel",
    speaker: "alice",
    timestamp: "2023-03-10T00:00:00.000Z",
  },
  {
    content: "Alice works as a data engineer at Northwind.",
    wing: "alice",
    room: "work",
    timestamp: "2023-04-01T00:00:00.000Z",
  },
  {
    content: "Bob flew to Lisbon for a conference about databases.",
    wing: "bob",
    room: "travel",
    timestamp: "2023-05-01T00:00:00.000Z",
  },
];

/** Every tool the server lists, in order. */
const TOOL_NAMES = [
  "status",
  "list_wings",
  "list_rooms",
  "get_taxonomy",
  "search",
  "check_duplicate",
  "recall",
  "remember",
  "add_drawer",
  "get_drawer",
  "list_drawers",
  "update_drawer",
  "delete_drawer",
  "kg_query",
  "kg_add",
  "kg_invalidate",
  "kg_timeline",
  "kg_stats",
  "traverse",
  "find_tunnels",
  "create_tunnel",
  "list_tunnels",
  "delete_tunnel",
  "follow_tunnels",
  "diary_write",
  "diary_read",
  "wake_up",
];

describe("the palace MCP server, through the MCP SDK client over streamable HTTP", () => {
  const palaces = new TestPalaces();
  let palace: Palace;
  let served: ServedMcpHttp;
  let client: McpClient;
  let ids: string[];

  /** Calls a tool and returns its structured result, checking the JSON text says the same. */
  async function call(name: string, args: Record<string, unknown> = {}): Promise<unknown> {
    const result = await client.callTool(name, args);
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? "";
    expect(JSON.parse(text)).toEqual(result.structuredContent);
    return result.structuredContent;
  }

  /** Calls a tool that must fail and returns its error text. */
  async function failure(name: string, args: Record<string, unknown>): Promise<string> {
    const result = await client.callTool(name, args);
    expect(result.isError).toBe(true);
    return (result.content as { text: string }[]).map((part) => part.text).join("\n");
  }

  beforeAll(async () => {
    palace = await palaces.open({ name: "mcp-test", identity: IDENTITY });
    ids = (await palace.file(DRAFTS)).map((result) => result.id);
    served = await servePalaceMcpHttp({ palace });
    client = await McpClient.connect("palace", { type: "http", url: served.url });
  });

  afterAll(async () => {
    await client?.close();
    await served?.close();
    await palaces.cleanup();
  });

  it("lists every tool, each with an object input schema", async () => {
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) expect(tool.inputSchema.type).toBe("object");
  });

  it("serves the one palace tool set: name for name, schema for schema, what palaceTools gives an agent", async () => {
    const served = await client.listTools();
    const agents = palaceTools(palace);
    // One definition per name: no tool is listed twice, none is missing from either side.
    expect(new Set(agents.map((tool) => tool.name)).size).toBe(agents.length);
    expect(
      served.map(({ name, description, inputSchema, annotations }) => ({
        name,
        description,
        inputSchema,
        annotations,
      })),
    ).toEqual(
      agents.map(({ name, description, inputSchema, annotations }) => ({
        name,
        description,
        inputSchema,
        annotations,
      })),
    );
    // Argument names are camelCase, as the results' fields are.
    for (const tool of agents) {
      for (const field of Object.keys((tool.inputSchema as { properties: object }).properties)) {
        expect(field, `${tool.name}.${field}`).toMatch(/^[a-z][a-zA-Z]*$/);
      }
    }
  });

  it("marks the tools that only read as read-only, and the ones that remove or overwrite as destructive", async () => {
    const hints = Object.fromEntries((await client.listTools()).map((tool) => [tool.name, tool.annotations]));
    for (const name of ["search", "recall", "kg_query", "diary_read", "wake_up", "status"]) {
      expect(hints[name], name).toEqual({ readOnlyHint: true, openWorldHint: false });
    }
    for (const name of ["delete_drawer", "update_drawer", "kg_invalidate", "delete_tunnel"]) {
      expect(hints[name], name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    }
    for (const name of ["add_drawer", "remember", "kg_add", "create_tunnel", "diary_write"]) {
      expect(hints[name], name).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    }
  });

  it("recall and remember: the short forms of search and add_drawer", async () => {
    const kept = (await call("remember", { content: "Ada keeps her gears in the blue drawer." })) as {
      id: string;
      created: boolean;
    };
    expect(kept).toEqual({ id: expect.stringMatching(/^d_/), created: true });
    expect(await palace.get(kept.id)).toMatchObject({ wing: "memories", room: "general", hall: "memories" });
    const { hits } = (await call("recall", { query: "blue drawer gears", k: 1 })) as {
      hits: { id: string; content: string }[];
    };
    expect(hits.map((hit) => hit.id)).toEqual([kept.id]);
    expect(await palace.delete(kept.id)).toBe(true);
  });

  it("status, list_wings, list_rooms and get_taxonomy describe the palace", async () => {
    // No path on the host reaches a client.
    expect(await call("status")).toEqual({
      name: "mcp-test",
      embedding: "hashing-v1-384",
      identity: "admin",
      admin: true,
      drawers: 3,
      wings: 2,
      rooms: 3,
      pinned: 0,
      pendingVectors: 0,
    });
    expect(await call("list_wings")).toEqual({
      wings: [
        { wing: "alice", count: 2 },
        { wing: "bob", count: 1 },
      ],
    });
    expect(await call("list_rooms", { wing: "alice" })).toEqual({
      wing: "alice",
      rooms: [
        { wing: "alice", room: "travel", count: 1 },
        { wing: "alice", room: "work", count: 1 },
      ],
    });
    expect(await call("list_rooms")).toEqual({
      rooms: [
        { wing: "alice", room: "travel", count: 1 },
        { wing: "alice", room: "work", count: 1 },
        { wing: "bob", room: "travel", count: 1 },
      ],
    });
    expect(await call("get_taxonomy")).toEqual({
      wings: [
        {
          wing: "alice",
          count: 2,
          rooms: [
            { room: "travel", count: 1, halls: { general: 1 } },
            { room: "work", count: 1, halls: { general: 1 } },
          ],
        },
        { wing: "bob", count: 1, rooms: [{ room: "travel", count: 1, halls: { general: 1 } }] },
      ],
    });
  });

  it("search returns verbatim hits with ids, scores and metadata, scoped by wing and time", async () => {
    const expected = await palace.search("Lisbon tram", { k: 2, recordAccess: false });
    const { hits } = (await call("search", { query: "Lisbon tram", k: 2 })) as {
      hits: { id: string; content: string; score: number; wing: string; room: string; timestamp: string }[];
    };
    expect(
      hits.map(({ id, content, score, wing, room, timestamp }) => ({
        id,
        content,
        score,
        wing,
        room,
        timestamp,
      })),
    ).toEqual(
      expected.map(({ id, content, score, wing, room, timestamp }) => ({
        id,
        content,
        score,
        wing,
        room,
        timestamp,
      })),
    );
    expect(hits[0]?.id).toBe(ids[0]);
    const bob = (await call("search", { query: "Lisbon", wing: "bob" })) as { hits: { id: string }[] };
    expect(bob.hits.map((hit) => hit.id)).toEqual([ids[2]]);
    const april = (await call("search", {
      query: "Alice",
      from: "2023-03-15T00:00:00.000Z",
      to: "2023-04-15T00:00:00.000Z",
      mode: "bm25",
    })) as { hits: { id: string }[] };
    expect(april.hits.map((hit) => hit.id)).toEqual([ids[1]]);
  });

  it("check_duplicate finds the same text anywhere", async () => {
    expect(await call("check_duplicate", { content: DRAFTS[1]?.content })).toEqual({
      isDuplicate: true,
      matches: [
        {
          id: ids[1],
          wing: "alice",
          room: "work",
          similarity: 1,
          exact: true,
          content: DRAFTS[1]?.content,
        },
      ],
    });
    expect(
      await call("check_duplicate", { content: "Zebras graze near the river at dawn.", wing: "bob" }),
    ).toEqual({
      isDuplicate: false,
      matches: [],
    });
  });

  it("add, get, list, update and delete a drawer", async () => {
    const note = {
      content: "Ada pinned this: the engine needs a new gear train.",
      wing: "ada",
      room: "engines",
      hall: "notes",
      timestamp: "2023-06-01T12:00:00.000Z",
      metadata: { priority: 1, reviewed: false },
    };
    const added = (await call("add_drawer", { ...note, pinned: true })) as { id: string; created: boolean };
    expect(added).toEqual({ id: expect.stringMatching(/^d_[0-9a-f]{24}$/), created: true });
    expect(await call("add_drawer", note)).toEqual({ id: added.id, created: false });

    const stored = await palace.get(added.id);
    expect(stored).toMatchObject({ ...note, pinned: true });
    expect(await call("get_drawer", { id: added.id })).toEqual({ drawer: stored });

    expect(await call("list_drawers", { wing: "alice", limit: 1 })).toEqual({
      drawers: [await palace.get(ids[0] as string)],
      nextCursor: "1",
    });
    expect(await call("list_drawers", { pinned: true })).toEqual({ drawers: [stored] });

    const updated = (await call("update_drawer", { id: added.id, room: "gears", pinned: false })) as {
      drawer: unknown;
    };
    expect(updated).toEqual({ drawer: { ...stored, room: "gears", pinned: false } });
    expect(await palace.get(added.id)).toEqual(updated.drawer);

    expect(await call("delete_drawer", { id: added.id })).toEqual({ id: added.id, deleted: true });
    expect(await failure("delete_drawer", { id: added.id })).toBe(
      `No drawer has id ${added.id}; find ids with search or list_drawers`,
    );
    expect(await failure("get_drawer", { id: added.id })).toBe(
      `No drawer has id ${added.id}; find ids with search or list_drawers`,
    );
  });

  it("kg_add, kg_query, kg_invalidate, kg_timeline and kg_stats keep a temporal graph", async () => {
    palace.kg.declarePredicate("lives_in", { singleValued: true });
    const added = (await call("kg_add", {
      subject: "Alice",
      predicate: "lives_in",
      object: "Lisbon",
      validFrom: "2023-03",
      sourceDrawerId: ids[0],
    })) as { fact: { id: string; createdAt: string } };
    const lisbon = {
      id: added.fact.id,
      wing: "facts",
      subject: "Alice",
      predicate: "lives_in",
      object: "Lisbon",
      validFrom: "2023-03",
      sourceDrawerId: ids[0],
      createdAt: added.fact.createdAt,
      text: "Alice — lives_in → Lisbon (since 2023-03)",
    };
    expect(added).toEqual({
      created: true,
      fact: lisbon,
      conflicts: [],
      observation: "Stored: Alice — lives_in → Lisbon (since 2023-03).",
    });

    const conflict = (await call("kg_add", { subject: "alice", predicate: "lives_in", object: "Porto" })) as {
      created: boolean;
      conflicts: { existing: unknown; resolution: string }[];
    };
    expect(conflict.created).toBe(false);
    expect(conflict.conflicts.map(({ existing, resolution }) => ({ existing, resolution }))).toEqual([
      { existing: lisbon, resolution: "refused" },
    ]);

    expect(await call("kg_query", { subject: "alice" })).toEqual({ facts: [lisbon] });
    expect(await call("kg_query", { subject: "Alice", asOf: "2022-01-01" })).toEqual({ facts: [] });

    const ended = {
      ...lisbon,
      validTo: "2024-01-01",
      text: "Alice — lives_in → Lisbon (2023-03 – 2024-01-01)",
    };
    expect(
      await call("kg_invalidate", {
        subject: "Alice",
        predicate: "lives_in",
        object: "Lisbon",
        at: "2024-01-01",
      }),
    ).toEqual({ ended: [ended] });
    expect(await call("kg_timeline", { entity: "Lisbon" })).toEqual({ entity: "Lisbon", facts: [ended] });
    expect(await call("kg_stats")).toEqual({
      entities: 2,
      aliases: 0,
      triples: 1,
      openTriples: 0,
      endedTriples: 1,
      predicates: 1,
      singleValuedPredicates: ["lives_in"],
      topPredicates: [{ predicate: "lives_in", count: 1 }],
    });
    expect(await failure("kg_invalidate", { id: lisbon.id, subject: "Alice" })).toBe(
      "kg_invalidate: id: give either id (one fact) or subject, predicate and object (every open fact like it), not both",
    );
  });

  it("traverse walks the graph from an entity, both ways, as of a time", async () => {
    const works = (await call("kg_add", {
      subject: "Alice",
      predicate: "works_at",
      object: "Northwind",
      validFrom: "2023-04-01",
    })) as { fact: { id: string; createdAt: string } };
    const walk = (await call("traverse", { entity: "Northwind", depth: 2 })) as {
      entity: string;
      nodes: unknown[];
      edges: { id: string }[];
      truncated: boolean;
    };
    expect({ ...walk, edges: walk.edges.map((edge) => edge.id) }).toEqual({
      entity: "Northwind",
      nodes: [
        { name: "Northwind", depth: 0 },
        { name: "Alice", depth: 1 },
        { name: "Lisbon", depth: 2 },
      ],
      edges: [works.fact.id, expect.stringMatching(/^t_/)],
      truncated: false,
    });
    expect(await call("traverse", { entity: "Northwind", asOf: "2023-01-01" })).toEqual({
      entity: "Northwind",
      nodes: [{ name: "Northwind", depth: 0 }],
      edges: [],
      truncated: false,
    });
    expect(await failure("traverse", { entity: "Nobody" })).toMatch(/Nobody/);
  });

  it("find, create, list, follow and delete tunnels", async () => {
    expect(await call("find_tunnels", { wing: "bob" })).toEqual({
      derived: [
        {
          room: "travel",
          wings: [
            { wing: "alice", drawers: 1 },
            { wing: "bob", drawers: 1 },
          ],
        },
      ],
      explicit: [],
    });
    const made = (await call("create_tunnel", {
      from: { wing: "alice", room: "work" },
      to: { drawerId: ids[2] },
      label: "databases",
    })) as { tunnel: { id: string; createdAt: string }; created: boolean };
    const tunnel = {
      id: made.tunnel.id,
      from: { wing: "alice", room: "work" },
      to: { drawerId: ids[2] },
      label: "databases",
      createdAt: made.tunnel.createdAt,
    };
    expect(made).toEqual({ tunnel, created: true });
    expect(tunnel.id).toMatch(/^tn_[0-9a-f]{24}$/);
    expect(await call("list_tunnels", { wing: "bob" })).toEqual({ tunnels: [tunnel] });
    expect(await call("list_tunnels", { room: "travel", wing: "alice" })).toEqual({ tunnels: [] });

    const bob = await palace.get(ids[2] as string);
    expect(await call("follow_tunnels", { id: tunnel.id })).toEqual({
      destinations: [{ tunnel, end: { drawerId: ids[2] }, drawers: [bob] }],
    });
    const fromTravel = (await call("follow_tunnels", { wing: "alice", room: "travel" })) as {
      destinations: { end: unknown; drawers: { id: string }[] }[];
    };
    expect(
      fromTravel.destinations.map(({ end, drawers }) => ({ end, drawers: drawers.map((d) => d.id) })),
    ).toEqual([{ end: { wing: "bob", room: "travel" }, drawers: [ids[2]] }]);

    expect(await failure("create_tunnel", { from: { wing: "alice" }, to: { drawerId: ids[2] } })).toBe(
      "from: must name both wing and room (or a drawerId)",
    );
    expect(await failure("follow_tunnels", {})).toBe(
      "follow_tunnels: give a tunnel id, or where to start (wing and room, or drawerId), not both",
    );
    expect(await call("delete_tunnel", { id: tunnel.id })).toEqual({ id: tunnel.id, deleted: true });
    expect(await failure("delete_tunnel", { id: tunnel.id })).toBe(
      `No tunnel has id ${tunnel.id}; find ids with list_tunnels`,
    );
  });

  it("diary_write and diary_read keep each agent's diary", async () => {
    const first = await call("diary_write", {
      agent: "claude",
      entry: "Helped Alice plan the Lisbon move.",
      timestamp: "2023-03-01T09:00:00.000Z",
    });
    expect(first).toEqual({
      id: expect.stringMatching(/^d_/),
      created: true,
      room: "2023-03-01",
      timestamp: "2023-03-01T09:00:00.000Z",
    });
    const second = await call("diary_write", {
      agent: "claude",
      entry: "Learned that Bob likes databases.",
      topic: "people",
      timestamp: "2023-03-02T09:00:00.000Z",
    });
    expect(await call("diary_read", { agent: "claude" })).toEqual({
      agent: "claude",
      entries: [
        {
          id: (second as { id: string }).id,
          wing: "diary:claude",
          entry: "Learned that Bob likes databases.",
          topic: "people",
          room: "people",
          timestamp: "2023-03-02T09:00:00.000Z",
        },
        {
          id: (first as { id: string }).id,
          wing: "diary:claude",
          entry: "Helped Alice plan the Lisbon move.",
          room: "2023-03-01",
          timestamp: "2023-03-01T09:00:00.000Z",
        },
      ],
    });
    expect(await call("diary_read", { agent: "claude", topic: "people", last: 5 })).toMatchObject({
      entries: [{ entry: "Learned that Bob likes databases." }],
    });
    expect(await call("diary_read", { agent: "someone-else" })).toEqual({
      agent: "someone-else",
      entries: [],
    });
  });

  it("wake_up fits its budget as gpt-tokenizer counts it and starts with who the user is", async () => {
    const woken = (await call("wake_up", { budget: 30 })) as { text: string; tokens: number };
    expect(woken.text.startsWith(IDENTITY)).toBe(true);
    expect(woken.tokens).toBe(countTokens(woken.text));
    expect(woken.tokens).toBeLessThanOrEqual(30);
  });

  it("refuses bad input naming the field, and unknown fields", async () => {
    expect(await failure("search", { query: 3 })).toBe(
      'Invalid input for tool "search": query: must be text (what to look for, in words)',
    );
    expect(await failure("search", { query: "x", k: 0 })).toBe(
      'Invalid input for tool "search": k: must be at least 1 (k)',
    );
    expect(await failure("add_drawer", { content: "x", wing: "w", room: " " })).toBe(
      'Invalid input for tool "add_drawer": room: is empty; give a room name',
    );
    expect(await failure("list_drawers", { wings: "alice" })).toBe(
      'Invalid input for tool "list_drawers": Unrecognized key: "wings"',
    );
    expect(await failure("search", { query: "x", from: "yesterday" })).toMatch(/^timeRange/);
    expect(await failure("update_drawer", { id: ids[0] })).toBe(
      "update_drawer: give at least one of room, hall, speaker, timestamp, metadata, pinned to change",
    );
  });
});
