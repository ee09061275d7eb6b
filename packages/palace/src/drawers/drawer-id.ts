import { createHash } from "node:crypto";
import type { DrawerDraft } from "./drawer.js";

/**
 * A drawer's id: `d_` + the first 24 hex digits of sha256(wing \0 content \0 turnId). Filing the
 * same draft again yields the same id, so re-mining never duplicates. The room is left out on
 * purpose: re-classifying a drawer moves it instead of filing a second copy.
 */
export function drawerId(draft: Pick<DrawerDraft, "wing" | "content" | "turnId">): string {
  const hash = createHash("sha256")
    .update(draft.wing)
    .update("\0")
    .update(draft.content)
    .update("\0")
    .update(draft.turnId ?? "")
    .digest("hex");
  return `d_${hash.slice(0, 24)}`;
}

/** sha256 hex of a drawer's text: the same text anywhere in the palace has the same hash. */
export function contentHash(content: string): string {
  return createHash("sha256").update(content).digest("hex");
}
