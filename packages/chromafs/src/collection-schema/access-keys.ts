/**
 * How a chunk carries its page's access groups: one boolean metadata key per group
 * (`group_<name>: true`), or `public: true` for a page without groups, because the pinned Chroma
 * server rejects list values. Ingest writes these keys; the store filters on them.
 */
export const PUBLIC_KEY = "public";

export function groupKey(group: string): string {
  return `group_${group}`;
}

/** Access metadata of a chunk: `public: true`, or one `group_<name>: true` per group. */
export function accessMetadata(groups: readonly string[]): Record<string, boolean> {
  if (groups.length === 0) return { [PUBLIC_KEY]: true };
  return Object.fromEntries(groups.map((group) => [groupKey(group), true]));
}
