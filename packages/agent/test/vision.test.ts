import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { richToolResult } from "@atrium/spec";
import { PIXEL_PNG } from "@atrium/spec/testing";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { CodeAgent } from "../src/agents/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { tool } from "../src/tools/index.js";
import { js, track } from "./support/agents.js";

const base64 = PIXEL_PNG.image as string;
const dir = mkdtempSync(join(tmpdir(), "atrium-vision-"));
const pngPath = join(dir, "pixel.png");
writeFileSync(pngPath, Buffer.from(base64, "base64"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const screenshot = tool({
  name: "screenshot",
  description: "Takes a screenshot.",
  inputSchema: z.object({}),
  execute: () => richToolResult("pixel", [PIXEL_PNG]),
});

describe("vision", () => {
  it("sends task images (a path, bytes, a URL) as image parts of the task message", async () => {
    const model = new ScriptedModel([js('final_answer("a pixel")')]);
    const agent = track(new CodeAgent({ model }));
    await agent.run("Describe these.", {
      images: [pngPath, Buffer.from(base64, "base64"), "https://example.com/cat.png"],
    });
    expect(model.calls[0]!.messages[1]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "New task:\nDescribe these." },
        { type: "image", image: base64, mediaType: "image/png" },
        { type: "image", image: base64, mediaType: "image/png" },
        { type: "image", image: new URL("https://example.com/cat.png") },
      ],
    });
  });

  it("puts images returned by tools into the next model call and prunes them after keepImagesForSteps", async () => {
    const model = new ScriptedModel([js("await screenshot({})"), js("1 + 1"), js("final_answer(2)")]);
    const agent = track(new CodeAgent({ model, tools: [screenshot], keepImagesForSteps: 1 }));
    const result = await agent.run("Look.");
    expect(model.calls[1]!.messages.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Observation:\nLast output from code snippet:\npixel" },
        { type: "image", image: base64, mediaType: "image/png" },
      ],
    });
    expect(model.calls[2]!.messages.at(-3)).toEqual({
      role: "user",
      content:
        "Observation:\nLast output from code snippet:\npixel\n[1 image from step 1 removed to save context]",
    });
    expect(result.steps[1]).toMatchObject({
      images: [{ type: "image", image: base64, mediaType: "image/png" }],
    });
  });

  it("keeps at most maxStepImages images of one code step and notes the rest", async () => {
    const model = new ScriptedModel([
      js("for (let i = 0; i < 10; i++) await screenshot({});\n'ten'"),
      js("final_answer(10)"),
    ]);
    const agent = track(new CodeAgent({ model, tools: [screenshot] }));
    const result = await agent.run("Look ten times.");
    const pixel = { type: "image", image: base64, mediaType: "image/png" };
    expect(model.calls[1]!.messages.at(-1)).toEqual({
      role: "user",
      content: [
        {
          type: "text",
          text: "Observation:\nLast output from code snippet:\nten\n[Images left out: 2 images beyond the 8 a step may add.]",
        },
        ...Array.from({ length: 8 }, () => pixel),
      ],
    });
    expect((result.steps[1] as { images: unknown[] }).images).toHaveLength(8);
  });

  it("refuses a missing file or non-image bytes with a clear error before calling the model", async () => {
    const model = new ScriptedModel([]);
    const agent = track(new CodeAgent({ model }));
    await expect(agent.run("x", { images: [join(dir, "nope.png")] })).rejects.toThrow(
      `image ${join(dir, "nope.png")}: no such file`,
    );
    await expect(agent.run("x", { images: [new Uint8Array([1, 2, 3])] })).rejects.toThrow(
      "image bytes: not a PNG, JPEG, GIF or WebP image",
    );
    const hugeDataUrl = `data:image/png;base64,${"A".repeat(28_000_000)}`;
    await expect(agent.run("x", { images: [hugeDataUrl] })).rejects.toThrow(
      "image data URL is about 21000000 bytes; the limit is 20971520 (maxImageBytes)",
    );
    expect(model.calls).toHaveLength(0);
  });
});
