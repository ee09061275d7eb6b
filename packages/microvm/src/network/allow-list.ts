import { ConfigError } from "@atrium/spec";
import { RELAY_SOURCE } from "./relay-source.js";

/** One allowed destination as the guest sees it, and the host process that relays to it. */
export interface GuestForward {
  /** Address and port the guest connects to. */
  guestAddress: string;
  guestPort: number;
  /** A shell command QEMU runs per connection, relaying its stdin/stdout to the real host. */
  command: string;
  /** The /etc/hosts line that names guestAddress, if any. */
  hostsEntry: string | undefined;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost)$/;

/** Where the host's own loopback services appear in the guest (QEMU refuses relays on the gateway address). */
export const HOST_LOOPBACK_IN_GUEST = { address: "10.0.2.100", name: "host.atrium.internal" } as const;

/**
 * `network.allowHosts` as QEMU user-network rules. With an allow-list the network runs with
 * `restrict=on` (no packet leaves for anywhere) and each entry is one `guestfwd` rule: the
 * guest's connections to it are relayed by a small Node process to the real host, and nothing
 * else is reachable. A loopback entry (the host's own 127.0.0.1:PORT) appears in the guest as
 * 10.0.2.100:PORT, also named host.atrium.internal; any other entry gets an address of its own,
 * 10.0.2.(101 + index), and a host name also an /etc/hosts line.
 */
export function allowListForwards(
  allowHosts: readonly string[],
  /**
   * The list the guest's /etc/hosts was built from, when `allowHosts` narrows it (a pack run
   * with fewer hosts): each entry keeps the address it had there.
   */
  addressOrder: readonly string[] = allowHosts,
): GuestForward[] {
  return allowHosts.map((entry, index) => {
    const match = /^(.+):(\d{1,5})$/.exec(entry);
    if (!match) {
      throw new ConfigError(
        `network.allowHosts.${index}: ${JSON.stringify(entry)} needs a port (host:port); every allowed destination is one host and port`,
      );
    }
    const host = match[1] as string;
    const port = Number(match[2]);
    const loopback = LOOPBACK.test(host);
    const slot = addressOrder.indexOf(entry);
    const guestAddress = loopback
      ? HOST_LOOPBACK_IN_GUEST.address
      : `10.0.2.${101 + (slot >= 0 ? slot : index)}`;
    const isName = !/^\d+\.\d+\.\d+\.\d+$/.test(host);
    return {
      guestAddress,
      guestPort: port,
      command: [process.execPath, "-e", RELAY_SOURCE, host, String(port)].map(shellQuote).join(" "),
      hostsEntry: loopback
        ? `${guestAddress} ${HOST_LOOPBACK_IN_GUEST.name}`
        : isName
          ? `${guestAddress} ${host}`
          : undefined,
    };
  });
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}
