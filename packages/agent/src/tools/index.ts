export {
  isRichToolResult,
  type RichToolResult,
  richToolResult,
  type Tool,
  type ToolContext,
} from "@atrium/spec";
export { type ToolDefinition, tool } from "./tool.js";
