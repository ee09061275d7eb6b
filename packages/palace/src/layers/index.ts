export {
  type EssentialDrawer,
  type EssentialsLayer,
  essentialsLayer,
} from "./essentials-layer.js";
export { type BudgetLine, fitLines } from "./fit-lines.js";
export { type IdentityLayer, identityLayer } from "./identity-layer.js";
export type { LayerScope } from "./layer-options.js";
export { deepSearch, recallRoom } from "./room-recall.js";
export {
  buildWakeUp,
  DEFAULT_WAKE_UP_TOKENS,
  MEMORIES_HEADER,
  type PalaceWakeUpOptions,
  wakeUp,
} from "./wake-up.js";
