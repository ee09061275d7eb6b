export { ATTR, inSpan, SPAN, TRACER_NAME } from "./tracing.js";
