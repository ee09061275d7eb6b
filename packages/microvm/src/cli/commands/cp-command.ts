import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { defineCommand, UsageError } from "@atrium/kit/cli";
import { defaultStateDir } from "../../config/state-dir.js";
import { requestMachine } from "../control-client.js";

const GUEST = /^([a-z0-9][a-z0-9_.-]{0,62}):(\/.*)$/;

export const cpCommand = defineCommand({
  name: "cp",
  summary: "copy a file between the host and a running named machine",
  usage: "SOURCE DEST",
  description:
    "Copies one file between the host and a running named machine; the guest side is written\nNAME:/absolute/path.",
  footer:
    "Examples:\n  atrium-vm cp ./data.csv box:/root/data.csv     host → guest\n  atrium-vm cp box:/root/out.txt ./out.txt       guest → host",
  positionals: { min: 2, max: 2, names: "SOURCE and DEST" },
  async run(args, io) {
    const [source, dest] = args.positionals as [string, string];
    const from = GUEST.exec(source);
    const to = GUEST.exec(dest);
    if ((from && to) || (!from && !to)) {
      throw new UsageError("one side must be NAME:/path in a machine and the other a host path");
    }
    const store = { stateDir: defaultStateDir(io.env) };
    let failure: string | undefined;
    if (to) {
      const data = await readFile(resolve(io.cwd, source));
      await requestMachine(
        to[1] as string,
        { op: "write", path: to[2] as string, data: data.toString("base64") },
        (reply) => {
          if (reply.type === "error") failure = reply.message;
        },
        store,
      );
    } else if (from) {
      let data: Buffer | undefined;
      await requestMachine(
        from[1] as string,
        { op: "read", path: from[2] as string },
        (reply) => {
          if (reply.type === "data") data = Buffer.from(reply.data, "base64");
          else if (reply.type === "error") failure = reply.message;
        },
        store,
      );
      if (data) await writeFile(resolve(io.cwd, dest), data);
    }
    if (failure !== undefined) throw new Error(failure);
    return 0;
  },
});
