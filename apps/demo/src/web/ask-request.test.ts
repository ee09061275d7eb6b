import { describe, expect, it } from "vitest";
import { resolveDemoLimits } from "../limits.js";
import { type AskRequest, readAskRequest } from "./ask-request.js";

// A real 1×1 PNG, 70 bytes.
const PIXEL_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);
const limits = resolveDemoLimits({ maxQuestionChars: 40, maxWebImageBytes: 100, maxWebImages: 2 });

function form(
  fields: Record<string, string>,
  files: { name: string; type: string; bytes: Uint8Array }[] = [],
) {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  for (const file of files) data.append("images", new File([file.bytes], file.name, { type: file.type }));
  return data;
}

describe("readAskRequest", () => {
  it("reads the question, the switches and each image, typed by its bytes", async () => {
    const request = (await readAskRequest(
      form({ question: "  What is mint dev?  ", executor: "quickjs", model: " scripted " }, [
        // The browser's label is wrong; the bytes say PNG.
        { name: "pixel.png", type: "image/jpeg", bytes: PIXEL_PNG },
      ]),
      limits,
    )) as AskRequest;
    expect(request.question).toBe("What is mint dev?");
    expect(request.executor).toBe("quickjs");
    expect(request.model).toBe("scripted");
    expect(request.imageSummaries).toEqual([{ name: "pixel.png", mediaType: "image/png", bytes: 70 }]);
    expect(request.images).toEqual([
      { type: "image", image: new Uint8Array(PIXEL_PNG), mediaType: "image/png" },
    ]);
    expect(await readAskRequest(form({ question: "x" }), limits)).toEqual({
      question: "x",
      executor: "",
      model: "",
      images: [],
      imageSummaries: [],
    });
  });

  it("refuses what it cannot use, naming the field or file and what to do", async () => {
    const png = { name: "pixel.png", type: "image/png", bytes: PIXEL_PNG };
    expect(await readAskRequest(form({ question: "  " }), limits)).toEqual({
      status: 400,
      message: "the question is empty; type a question about the docs",
    });
    expect(await readAskRequest(form({}), limits)).toEqual({
      status: 400,
      message: "the question is empty; type a question about the docs",
    });
    expect(await readAskRequest(form({ question: "x".repeat(41) }), limits)).toEqual({
      status: 400,
      message: "the question has 41 characters, over the limit of 40; shorten it",
    });
    expect(await readAskRequest(form({ question: "x" }, [png, png, png]), limits)).toEqual({
      status: 400,
      message: "3 images attached; at most 2 go with one question (maxWebImages)",
    });
    expect(
      await readAskRequest(
        form({ question: "x" }, [{ ...png, name: "big.png", bytes: new Uint8Array(101) }]),
        limits,
      ),
    ).toEqual({
      status: 413,
      message: "big.png is 101 bytes; an image may have at most 100 (maxWebImageBytes); send a smaller one",
    });
    expect(
      await readAskRequest(
        form({ question: "x" }, [{ name: "notes.png", type: "image/png", bytes: Buffer.from("text") }]),
        limits,
      ),
    ).toEqual({
      status: 415,
      message:
        "notes.png is not a PNG, JPEG, GIF or WebP image (the browser called it image/png); attach one of those",
    });
    const textImage = form({ question: "x" });
    textImage.append("images", "not a file");
    expect(await readAskRequest(textImage, limits)).toEqual({
      status: 400,
      message: "the images field must hold files, not text; attach image files",
    });
    const fileExecutor = form({ question: "x" });
    fileExecutor.append("executor", new File(["x"], "x.txt"));
    expect(await readAskRequest(fileExecutor, limits)).toEqual({
      status: 400,
      message: "executor must be text, not a file",
    });
  });
});
