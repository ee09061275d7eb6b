import { sniffImageType } from "@atrium/agent";
import type { ImagePart } from "@atrium/spec";
import type { DemoLimits } from "../limits.js";
import type { ImageSummary } from "./wire-events.js";

/** A question from the browser, checked: the images are real PNG/JPEG/GIF/WebP within the limits. */
export interface AskRequest {
  question: string;
  /** The executor and model ids the user picked ("" = the server's default). */
  executor: string;
  model: string;
  images: ImagePart[];
  /** What was sent, for the trace: name, type and size of each image. */
  imageSummaries: (ImageSummary & { name: string })[];
}

/** A request the server refuses, with the HTTP status and a message the page shows as it is. */
export interface RequestProblem {
  status: 400 | 413 | 415;
  message: string;
}

/**
 * Reads `POST /api/ask`'s multipart form: `question`, optional `executor` and `model` ids, and
 * any number of `images` files. A problem is returned as a value naming the field or file and
 * what to do, never thrown: the route turns it into a JSON error response.
 */
export async function readAskRequest(
  form: FormData,
  limits: Pick<DemoLimits, "maxQuestionChars" | "maxWebImageBytes" | "maxWebImages">,
): Promise<AskRequest | RequestProblem> {
  const question = form.get("question");
  if (typeof question !== "string" || question.trim() === "") {
    return { status: 400, message: "the question is empty; type a question about the docs" };
  }
  if (question.trim().length > limits.maxQuestionChars) {
    return {
      status: 400,
      message: `the question has ${question.trim().length} characters, over the limit of ${limits.maxQuestionChars}; shorten it`,
    };
  }
  const executor = textField(form, "executor");
  const model = textField(form, "model");
  if (typeof executor !== "string") return executor;
  if (typeof model !== "string") return model;

  const files = form.getAll("images");
  if (files.length > limits.maxWebImages) {
    return {
      status: 400,
      message: `${files.length} images attached; at most ${limits.maxWebImages} go with one question (maxWebImages)`,
    };
  }
  const images: ImagePart[] = [];
  const imageSummaries: AskRequest["imageSummaries"] = [];
  for (const file of files) {
    if (typeof file === "string") {
      return { status: 400, message: "the images field must hold files, not text; attach image files" };
    }
    const name = file.name || "image";
    if (file.size > limits.maxWebImageBytes) {
      return {
        status: 413,
        message: `${name} is ${file.size} bytes; an image may have at most ${limits.maxWebImageBytes} (maxWebImageBytes); send a smaller one`,
      };
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    // The bytes decide the type, not the browser's label: a renamed file is refused.
    const mediaType = sniffImageType(bytes);
    if (!mediaType) {
      return {
        status: 415,
        message: `${name} is not a PNG, JPEG, GIF or WebP image${labelled(file.type) ? ` (the browser called it ${file.type})` : ""}; attach one of those`,
      };
    }
    images.push({ type: "image", image: bytes, mediaType });
    imageSummaries.push({ name, mediaType, bytes: bytes.byteLength });
  }
  return { question: question.trim(), executor, model, images, imageSummaries };
}

export function isRequestProblem(value: AskRequest | RequestProblem): value is RequestProblem {
  return "status" in value;
}

/** A type worth repeating: "application/octet-stream" only says the sender did not know. */
function labelled(type: string): boolean {
  return type !== "" && type !== "application/octet-stream";
}

function textField(form: FormData, field: string): string | RequestProblem {
  const value = form.get(field);
  if (value === null) return "";
  if (typeof value !== "string") return { status: 400, message: `${field} must be text, not a file` };
  return value.trim();
}
