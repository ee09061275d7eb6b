import { ConfigError } from "@atrium/spec";
import type { VmConfig } from "../config/vm-config.js";

/**
 * What the host running a pack lets it have. A pack's config was written elsewhere (and a pack
 * file can be edited by hand), so it never decides on its own: the network is off and no port is
 * bound unless the runner asks, and the runner can only narrow what the pack declares.
 */
export interface PackRunPolicy {
  /** Turn on the network the pack declares (default off). Refused when the pack's is off. */
  network?: boolean;
  /**
   * Narrow the network to these `host:port` entries: each must be in the pack's own
   * `allowHosts` when it has one; a pack with the full user network is restricted to them.
   */
  allowHosts?: readonly string[];
  /** Bind the host ports the pack declares (default: none); needs `network`. */
  ports?: boolean;
}

/** The pack's config as this host will boot it under `policy`. */
export function applyPackPolicy(config: VmConfig, policy: PackRunPolicy = {}): VmConfig {
  if (config.volumes.length > 0) {
    // `pack create` refuses volumes; a pack that has some was edited, and would share this host's directories.
    throw new ConfigError(
      "volumes: this pack's config names host directories, which a pack cannot carry (it was edited after `atrium-vm pack create`); remove them from the pack",
    );
  }
  const packAllows = config.network.allowHosts;
  if (!policy.network) {
    if (policy.allowHosts?.length || policy.ports) {
      throw new ConfigError(
        "the pack's network stays off unless asked for: add --network (network: true) to allow hosts or bind ports",
      );
    }
    return { ...config, network: { enabled: false, allowHosts: [] }, ports: [] };
  }
  if (!config.network.enabled) {
    throw new ConfigError(
      "the pack's network is off (network.enabled = false in its config); a runner can narrow a pack's network, never turn it on",
    );
  }
  let allowHosts = packAllows;
  if (policy.allowHosts && policy.allowHosts.length > 0) {
    const outside =
      packAllows.length > 0 ? policy.allowHosts.filter((host) => !packAllows.includes(host)) : [];
    if (outside.length > 0) {
      throw new ConfigError(
        `allow-hosts: ${outside.join(", ")} ${outside.length > 1 ? "are" : "is"} not in the pack's allow-list (${packAllows.join(", ")}); a runner can only narrow it`,
      );
    }
    allowHosts = [...policy.allowHosts];
  }
  return {
    ...config,
    network: { enabled: true, allowHosts },
    ports: policy.ports ? config.ports : [],
  };
}
