export type {
  DerivedTunnel,
  Tunnel,
  TunnelDestination,
  TunnelEnd,
  TunnelInput,
  TunnelMap,
  TunnelRow,
} from "./tunnel-types.js";
export { type TunnelScope, Tunnels, tunnelId } from "./tunnels.js";
