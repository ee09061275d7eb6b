export { ContinuationError, MAX_CONTINUATION_CHARS } from "./continuation-codec.js";
export {
  type ContinuationKeySource,
  loadContinuationKey,
  MIN_CONTINUATION_KEY_BYTES,
} from "./continuation-key.js";
