// Runs once per guest connection to an allowed host (QEMU's user network starts it through a
// `guestfwd=...-cmd:` rule with the connection on stdin/stdout) and relays it to HOST:PORT.
// Plain CommonJS so QEMU can start it with node alone, without a TypeScript loader.
const net = require("node:net");

const [host, port] = process.argv.slice(2);
const socket = net.connect(Number(port), host);
process.stdin.pipe(socket);
socket.pipe(process.stdout);
socket.on("error", () => process.exit(1));
socket.on("close", () => process.exit(0));
