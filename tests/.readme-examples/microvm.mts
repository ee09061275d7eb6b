import { Machine } from "@atrium/microvm";

// A guest booted from busybox-static on Debian's kernel under QEMU: no image pull, network off.
await using machine = await Machine.create({ image: "busybox" }); // or an OCI layout dir / docker-save tar
const { exitCode, stdout } = await machine.exec("echo hello from $(uname -s)", { timeoutMs: 30_000 });
console.log(exitCode, stdout.trim()); // 0 hello from Linux
await machine.writeFile("/tmp/data.bin", new Uint8Array([1, 2, 3]));
console.log(await machine.readFile("/tmp/data.bin")); // Uint8Array(3) [ 1, 2, 3 ]
