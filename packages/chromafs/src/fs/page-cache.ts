import { LruTextCache } from "../text-cache/lru-text-cache.js";

/** Page texts by tree path, shared by the sessions of one TreeCache (see `LruTextCache`). */
export class PageCache extends LruTextCache {}
