import { ConfigError, type Message } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { parseDataUrl, toImagePart, toModelMessages } from "./ai-sdk-messages.js";

const bytes = new Uint8Array([137, 80, 78, 71]);

describe("toImagePart", () => {
  it("maps bytes, URLs, URL strings, data URLs and base64", () => {
    expect(toImagePart({ type: "image", image: bytes, mediaType: "image/png" })).toEqual({
      type: "image",
      image: bytes,
      mediaType: "image/png",
    });
    expect(toImagePart({ type: "image", image: bytes })).toEqual({ type: "image", image: bytes });
    expect(toImagePart({ type: "image", image: "https://example.com/a.jpg" })).toEqual({
      type: "image",
      image: new URL("https://example.com/a.jpg"),
    });
    expect(toImagePart({ type: "image", image: "data:image/webp;base64,UklGRg==" })).toEqual({
      type: "image",
      image: "UklGRg==",
      mediaType: "image/webp",
    });
    expect(toImagePart({ type: "image", image: "iVBORw0K", mediaType: "image/png" })).toEqual({
      type: "image",
      image: "iVBORw0K",
      mediaType: "image/png",
    });
  });

  it("parses only base64 data URLs", () => {
    expect(parseDataUrl("data:image/png;name=x.png;base64,AAAA")).toEqual({
      mediaType: "image/png",
      base64: "AAAA",
    });
    expect(parseDataUrl("data:text/plain,hello")).toBeUndefined();
    expect(parseDataUrl("https://example.com")).toBeUndefined();
  });
});

describe("toModelMessages", () => {
  const conversation: Message[] = [
    { role: "system", content: "sys" },
    { role: "user", content: [{ type: "text", text: "look" }] },
    {
      role: "assistant",
      content: "Calling two tools.",
      toolCalls: [
        { id: "a", name: "snap", input: { n: 1 } },
        { id: "b", name: "fail", input: {} },
      ],
    },
    {
      role: "tool",
      toolCallId: "a",
      toolName: "snap",
      content: [
        { type: "image", image: bytes, mediaType: "image/png" },
        { type: "image", image: "https://example.com/b.png" },
      ],
    },
    {
      role: "tool",
      toolCallId: "b",
      toolName: "fail",
      content: [{ type: "text", text: "boom" }],
      isError: true,
    },
    { role: "assistant", content: "done" },
  ];

  it("moves tool images into one user message after the run of tool results", () => {
    expect(toModelMessages(conversation)).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: [{ type: "text", text: "look" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Calling two tools." },
          { type: "tool-call", toolCallId: "a", toolName: "snap", input: { n: 1 } },
          { type: "tool-call", toolCallId: "b", toolName: "fail", input: {} },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "a",
            toolName: "snap",
            output: { type: "text", value: "(2 images attached in the next message)" },
          },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "b",
            toolName: "fail",
            output: { type: "error-text", value: "boom" },
          },
        ],
      },
      {
        role: "user",
        content: [
          { type: "text", text: "Images returned by the tool call snap (a):" },
          { type: "image", image: bytes, mediaType: "image/png" },
          { type: "image", image: new URL("https://example.com/b.png") },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
    ]);
  });

  it("keeps tool images inside the result in inline mode", () => {
    const [, , , toolMessage] = toModelMessages(conversation, "inline");
    expect(toolMessage).toEqual({
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "a",
          toolName: "snap",
          output: {
            type: "content",
            value: [
              { type: "image-data", data: "iVBORw==", mediaType: "image/png" },
              { type: "image-url", url: "https://example.com/b.png" },
            ],
          },
        },
      ],
    });
  });

  it("asks for a mediaType when inline tool images are bytes without one", () => {
    const messages: Message[] = [
      { role: "tool", toolCallId: "a", toolName: "snap", content: [{ type: "image", image: bytes }] },
    ];
    expect(() => toModelMessages(messages, "inline")).toThrow(
      new ConfigError(
        'An image in a tool result needs a mediaType (e.g. "image/png") when given as bytes or base64',
      ),
    );
  });

  it("rejects an unknown role by name", () => {
    expect(() => toModelMessages([{ role: "robot", content: "x" } as never])).toThrow(
      'Unknown message role "robot"; use system, user, assistant or tool',
    );
  });
});
