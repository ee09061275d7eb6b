/**
 * The program QEMU's user network starts once per guest connection to an allowed host (a
 * `guestfwd=...-cmd:` rule, the connection on its stdin/stdout), as `node -e RELAY_SOURCE HOST
 * PORT`: it relays the connection to HOST:PORT. Source text rather than a file beside this module
 * because a bundler moves modules (the built package once shipped without the file, and a guest's
 * connection got the relay's "module not found" stack trace), and because a QEMU running as an
 * unprivileged user may not be able to read the package's directory at all.
 *
 * One line of plain CommonJS: QEMU's option parser would need every comma doubled (qemu-args
 * does that) and a newline would end the option.
 */
export const RELAY_SOURCE = [
  'const net = require("node:net");',
  "const [host, port] = process.argv.slice(1);",
  "const socket = net.connect(Number(port), host);",
  "process.stdin.pipe(socket);",
  "socket.pipe(process.stdout);",
  "socket.on('error', () => process.exit(1));",
  "socket.on('close', () => process.exit(0));",
].join(" ");
