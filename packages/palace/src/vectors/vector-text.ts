import type { DrawerDraft } from "../drawers/drawer.js";

/** The text the vector side embeds for a drawer. */
export function vectorText(draft: DrawerDraft): string {
  return draft.speaker ? `${draft.speaker}: ${draft.content}` : draft.content;
}
