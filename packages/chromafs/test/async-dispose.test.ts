// `await using` closes docs sessions, pooled sessions and the pool itself at the end of the block.
import { ClosedError } from "@atrium/spec";
import { afterAll, describe, expect, it } from "vitest";
import { type DocsSession, openDocsSession } from "../src/session/docs-session.js";
import type { DocsShell } from "../src/session/docs-shell.js";
import { SessionWorkerPool } from "../src/session-pool/session-worker-pool.js";
import { LocalFolderStore } from "../src/store/local-folder-store.js";
import { writeSmallDocs } from "./fixtures/small-docs.js";

const docs = writeSmallDocs();
const store = new LocalFolderStore(docs.root);
afterAll(() => docs.remove());

describe("await using", () => {
  it("closes a docs session: a later command names it closed", async () => {
    let kept: DocsSession;
    {
      await using session = await openDocsSession({ store });
      kept = session;
      expect((await session.exec("pwd")).stdout).toBe("/\n");
    }
    await expect(kept.exec("pwd")).rejects.toThrow(new ClosedError("docs session"));
  });

  it("closes a pooled session, then the pool", async () => {
    let pool: SessionWorkerPool;
    {
      await using scopedPool = await SessionWorkerPool.start({ store, limits: { poolWorkers: 1 } });
      pool = scopedPool;
      let kept: DocsShell;
      {
        await using session = await scopedPool.openSession();
        kept = session;
        expect((await session.exec("pwd")).stdout).toBe("/\n");
      }
      await expect(kept.exec("pwd")).rejects.toThrow(new ClosedError("docs session"));
    }
    await expect(pool.openSession()).rejects.toThrow(new ClosedError("session worker pool"));
  });
});
