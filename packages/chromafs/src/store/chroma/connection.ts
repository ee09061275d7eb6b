import type { ChromaClient, Collection } from "@atrium/chroma";
import { type Embedding, errorMessage, rethrowIfFatal } from "@atrium/spec";
import { openDocsCollection } from "../../collection-schema/docs-collection.js";
import { loadChroma } from "../../collection-schema/load-chroma.js";
import { StoreUnavailableError } from "../../errors.js";

/** What the store needs of an embedded server to follow it across restarts. */
export interface FollowedServer {
  /** Where the server answers now. */
  readonly url: string;
  /** Looks again where the server is (a reuser re-reads the shared record). */
  refresh?(): Promise<unknown>;
}

/**
 * A `ChromaDocStore`'s connection: the client, the collection, where they are, and the embedded
 * server to follow when it moves. Every store call runs through `reachable`; the other parts of
 * the store read `collection` at call time, so a reconnect reaches them all.
 */
export class ChromaConnection {
  constructor(
    public collection: Collection,
    public client: ChromaClient,
    public url: string | undefined,
    readonly embedding: Embedding,
    readonly server: FollowedServer | undefined,
  ) {}

  /** Where the store is, for error messages ("chroma http://127.0.0.1:8000 collection docs"). */
  get description(): string {
    return `chroma ${this.url ?? "(client)"} collection ${this.collection.name}`;
  }

  /**
   * Runs a store call; a server that does not answer is a `StoreUnavailableError` naming the
   * store (never an empty answer, never chromadb's generic fetch text). A followed server that
   * came back elsewhere is reconnected to and the call made once more.
   */
  async reachable<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const reason = unreachableReason(error);
      if (reason === undefined) throw error;
      if (!(await this.followServer())) throw this.unavailable(reason, error);
      try {
        return await call();
      } catch (retryError) {
        const again = unreachableReason(retryError);
        throw again === undefined ? retryError : this.unavailable(again, retryError);
      }
    }
  }

  private unavailable(reason: string, cause: unknown): StoreUnavailableError {
    const where = this.url ? `Chroma at ${this.url}` : "Chroma";
    return new StoreUnavailableError(`${where}, collection ${this.collection.name}`, reason, { cause });
  }

  /** True when the followed server now answers at another URL and the store reconnected there. */
  private async followServer(): Promise<boolean> {
    const server = this.server;
    if (!server) return false;
    const chroma = await loadChroma();
    try {
      await server.refresh?.();
      const url = server.url;
      if (url === this.url) return false;
      const client = await chroma.connectChroma(url);
      this.collection = await openDocsCollection(client, this.collection.name, this.embedding, {
        create: false,
      });
      this.client = client;
      this.url = url;
      return true;
    } catch (error) {
      rethrowIfFatal(error instanceof chroma.ChromaUnreachableError ? undefined : error);
      return false;
    }
  }
}

/** Node's connection failures, as fetch reports them in `cause.code`. */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * Why a request to a Chroma server failed, when it failed because nothing answered; undefined
 * for every other failure (a bad filter, a missing collection). chromadb turns a failed fetch
 * into `ChromaConnectionError` and drops the cause, so that class is recognised by name; a
 * bare fetch failure (undici's `TypeError: fetch failed`) by its cause's code.
 */
export function unreachableReason(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.name === "ChromaConnectionError") return "no Chroma server answers there";
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  if (code && CONNECTION_CODES.has(code)) return `${code} (${errorMessage(cause)})`;
  if (error.name === "TypeError" && /fetch failed/i.test(error.message)) return "the connection failed";
  return undefined;
}
