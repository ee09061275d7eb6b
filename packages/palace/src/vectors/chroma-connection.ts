import {
  type ChromaClient,
  type ChromaServer,
  connectChroma,
  isChromaAlive,
  startChromaServer,
} from "@atrium/chroma";

/**
 * The Chroma server a palace's vectors live in: the palace's own (`<dir>/chroma`, started here or
 * reused when another process already runs it) or an existing one given by URL. When the local
 * server goes away (its owner, another process, closed it) `recover` starts or finds it again, so
 * two processes sharing a palace survive either one closing first.
 */
export class ChromaConnection {
  private constructor(
    private server: ChromaServer | undefined,
    private currentClient: ChromaClient,
    private readonly dataDir: string | undefined,
    private readonly startTimeoutMs: number | undefined,
  ) {}

  static async open(target: {
    url?: string;
    dataDir: string;
    startTimeoutMs?: number;
  }): Promise<ChromaConnection> {
    if (target.url !== undefined) {
      return new ChromaConnection(undefined, await connectChroma(target.url), undefined, undefined);
    }
    const server = await startChromaServer({ path: target.dataDir, startTimeoutMs: target.startTimeoutMs });
    try {
      return new ChromaConnection(
        server,
        await connectChroma(server.url),
        target.dataDir,
        target.startTimeoutMs,
      );
    } catch (error) {
      await server.stop();
      throw error;
    }
  }

  get client(): ChromaClient {
    return this.currentClient;
  }

  get url(): string | undefined {
    return this.server?.url;
  }

  /**
   * After a failed request: true when a working server answers again (found or restarted), so
   * the request is worth repeating; false for a URL the palace does not manage, or a live server
   * (the failure was something else).
   */
  async recover(): Promise<boolean> {
    if (!this.server || !this.dataDir) return false;
    if (await isChromaAlive(this.server.url)) return false;
    if (!this.server.owned) {
      const health = await this.server.refresh();
      if (health.state === "up") {
        this.currentClient = await connectChroma(this.server.url);
        return true;
      }
    }
    const previous = this.server;
    this.server = await startChromaServer({ path: this.dataDir, startTimeoutMs: this.startTimeoutMs });
    await previous.stop();
    this.currentClient = await connectChroma(this.server.url);
    return true;
  }

  /** Stops the server when this process started it; a reused or remote one is only let go. */
  async close(): Promise<void> {
    await this.server?.stop();
  }
}
