import { createServer } from "node:net";

/** A port the OS says is free on `host` right now (it may be taken again before we bind it). */
export function findFreePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error(`no free port on ${host}`))));
    });
  });
}
