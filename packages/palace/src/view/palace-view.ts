import { PalaceAccess } from "../access/palace-access.js";
import type { PalaceGrants } from "../access/palace-grants.js";
import { countPinned } from "../core/drawer-queries.js";
import { palaceCore } from "../core/palace-core.js";
import type {
  DrawerPage,
  DrawerUpdate,
  DuplicateCheck,
  FileResult,
  ListOptions,
  WingCount,
} from "../core/palace-types.js";
import type { Drawer, DrawerDraft } from "../drawers/drawer.js";
import { drawerId } from "../drawers/drawer-id.js";
import { invalidInput, PalaceError } from "../errors.js";
import type { KnowledgeGraph } from "../kg/knowledge-graph.js";
import type { PalaceLimits } from "../limits.js";
import type { Palace } from "../palace.js";
import type { SearchHit, SearchOptions } from "../search/hybrid-search.js";
import type { Tunnels } from "../tunnels/tunnels.js";

/** What `PalaceView.status` tells a caller: counts of what it reads, never where the palace lives. */
export interface PalaceViewStatus {
  name: string;
  embedding: string;
  /** Who the view is for, and whether it holds the admin grant. */
  identity: string;
  admin: boolean;
  drawers: number;
  wings: number;
  rooms: number;
  pinned: number;
  /** Write-log rows whose vectors are not in Chroma yet, palace-wide (0 when in sync). */
  pendingVectors: number;
}

/**
 * One identity's palace: every read returns only what its grants read, every write is checked
 * against what they write. The palace's MCP tools, its agent tools, its `MemoryStore` and the
 * demo all work through a view, so access is decided here once, not in each server.
 *
 * A drawer, fact or tunnel the identity cannot read is answered as missing ("No drawer has id
 * …"), the same answer as for one that does not exist; naming a wing it cannot read in a filter
 * is refused with a `palace/forbidden` error that lists the wings it may use.
 */
export class PalaceView {
  readonly access: PalaceAccess;

  constructor(
    readonly palace: Palace,
    access: PalaceAccess | PalaceGrants,
    who?: string,
  ) {
    this.access = access instanceof PalaceAccess ? access : PalaceAccess.of(access, who);
  }

  get limits(): Readonly<PalaceLimits> {
    return this.palace.limits;
  }

  /** The knowledge graph as this identity sees it (facts of wings it reads whole). */
  get kg(): KnowledgeGraph {
    return this.palace.kg.scoped(this.access);
  }

  /** Tunnels with both ends readable. */
  get tunnels(): Tunnels {
    return this.palace.tunnels.scoped(this.access);
  }

  /** This view confined to one wing: what it may do there, nothing elsewhere. */
  narrowedTo(wing: string): PalaceView {
    const grants = {
      read: this.access.canRead(wing) ? [wing] : [],
      write: this.access.canWrite(wing) ? [wing] : [],
    };
    return new PalaceView(this.palace, PalaceAccess.of(grants, this.access.who));
  }

  /** Where writes that name no wing go: the one wing this identity writes whole. */
  get homeWing(): string | undefined {
    return this.access.homeWing();
  }

  async file(drafts: readonly DrawerDraft[]): Promise<FileResult[]> {
    if (!Array.isArray(drafts)) throw invalidInput("drafts", "must be an array of drafts");
    for (const [index, draft] of drafts.entries()) {
      if (typeof draft?.wing !== "string" || typeof draft.room !== "string") continue;
      this.access.assertWrite(draft.wing, draft.room, `drafts[${index}].wing`);
      // A drawer's id leaves the room out: with rooms of a wing only, the same text filed in a
      // room this identity may not write would make it a holder of that drawer. Refused.
      if (!this.access.canWrite(draft.wing) && typeof draft.content === "string") {
        const existing = await this.palace.get(drawerId(draft));
        if (existing && !this.access.canWrite(existing.wing, existing.room)) {
          throw new PalaceError(
            "palace/forbidden",
            `drafts[${index}]: this text is already filed in a room of wing ${JSON.stringify(draft.wing)} that ${this.access.who} may not write; change the text or file it elsewhere`,
          );
        }
      }
    }
    return this.palace.file(drafts);
  }

  /** The drawer, or undefined when there is none this identity may read. */
  async get(id: string): Promise<Drawer | undefined> {
    const drawer = await this.palace.get(id);
    return drawer && this.access.canRead(drawer.wing, drawer.room) ? drawer : undefined;
  }

  async list(options: ListOptions = {}): Promise<DrawerPage> {
    this.assertFilter(options);
    return this.palace.list({ ...options, access: this.access });
  }

  async search(
    query: string,
    options: SearchOptions & { recordAccess?: boolean } = {},
  ): Promise<SearchHit[]> {
    this.assertFilter(options);
    return this.palace.search(query, { ...options, access: this.access });
  }

  async checkDuplicate(
    content: string,
    options: { threshold?: number; wing?: string } = {},
  ): Promise<DuplicateCheck> {
    this.assertFilter(options);
    return this.palace.checkDuplicate(content, { ...options, access: this.access });
  }

  /** Changes a drawer this identity may write; moving it to another room needs that room too. */
  async update(id: string, changes: DrawerUpdate): Promise<Drawer> {
    const drawer = await this.writable(id);
    if (typeof changes?.room === "string") this.access.assertWrite(drawer.wing, changes.room, "room");
    return this.palace.update(id, changes);
  }

  /** Removes a drawer this identity may write; false when there is none it can read. */
  async delete(id: string): Promise<boolean> {
    const drawer = await this.get(id);
    if (!drawer) return false;
    this.access.assertWrite(drawer.wing, drawer.room, "id");
    return this.palace.delete(id);
  }

  async taxonomy(): Promise<WingCount[]> {
    return this.palace.taxonomy({ access: this.access });
  }

  async status(): Promise<PalaceViewStatus> {
    const full = await this.palace.status();
    const taxonomy = await this.taxonomy();
    const pinned = countPinned(palaceCore(this.palace), this.access);
    return {
      name: full.name,
      embedding: full.embedding,
      identity: this.access.who,
      admin: this.access.isAdmin,
      drawers: taxonomy.reduce((sum, wing) => sum + wing.count, 0),
      wings: taxonomy.length,
      rooms: taxonomy.reduce((sum, wing) => sum + wing.rooms.length, 0),
      pinned,
      pendingVectors: full.pendingVectors,
    };
  }

  /** The drawer if this identity may write it; "not found" when it cannot even read it. */
  private async writable(id: string): Promise<Drawer> {
    const drawer = await this.get(id);
    if (!drawer) {
      throw new PalaceError("palace/not-found", `No drawer has id ${id}; find ids with search or list`);
    }
    this.access.assertWrite(drawer.wing, drawer.room, "id");
    return drawer;
  }

  /** A filter naming a wing (or room) outside the grants is refused, not silently emptied. */
  private assertFilter(filter: { wing?: unknown; room?: unknown }): void {
    if (typeof filter?.wing !== "string") return;
    if (typeof filter.room === "string") this.access.assertRead(filter.wing, filter.room, "wing");
    else if (!this.access.seesWing(filter.wing)) this.access.assertRead(filter.wing, undefined, "wing");
  }
}
