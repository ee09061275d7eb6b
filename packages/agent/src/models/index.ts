export {
  cutAtStopSequence,
  type ScriptedAssistantReply,
  ScriptedModel,
  type ScriptedModelCall,
  type ScriptedModelOptions,
  type ScriptedReply,
  type ScriptedReplyFunction,
  type ScriptedToolCall,
  splitIntoDeltas,
} from "./scripted-model.js";
