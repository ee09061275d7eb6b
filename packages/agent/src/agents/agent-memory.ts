import { ConfigError, type ContentPart, type Message } from "@atrium/spec";
import type { ActionStep, MemoryStep, SerializedMemory } from "./memory-steps.js";
import { imagePartOf, type StoredImage, upgradeStoredImage } from "./stored-image.js";

export interface ToMessagesOptions {
  /** Images of action steps older than this many action steps are replaced by a note. */
  keepImagesForSteps: number;
}

/**
 * The steps of an agent's runs, in order. It is plain data: `toJSON()` is a saved run that
 * `AgentMemory.fromJSON()` (or `run(task, { memory })`) continues from.
 */
export class AgentMemory {
  readonly steps: MemoryStep[];

  constructor(steps: MemoryStep[] = []) {
    this.steps = steps;
  }

  static fromJSON(saved: SerializedMemory | string): AgentMemory {
    const data = typeof saved === "string" ? parseSaved(saved) : saved;
    if (
      typeof data !== "object" ||
      data === null ||
      (data as SerializedMemory).version !== 1 ||
      !Array.isArray((data as SerializedMemory).steps)
    ) {
      throw new ConfigError(
        "saved memory must be { version: 1, steps: [...] }, as returned by memory.toJSON()",
      );
    }
    const steps = (data as SerializedMemory).steps;
    const bad = steps.findIndex(
      (step: unknown) =>
        typeof step !== "object" || step === null || !STEP_TYPES.has((step as { type?: unknown }).type),
    );
    if (bad !== -1) {
      throw new ConfigError(
        `saved memory: step ${bad + 1} is not a task, planning, action or final-answer step; pass what memory.toJSON() returned`,
      );
    }
    return new AgentMemory(structuredClone(steps).map(upgradeImages));
  }

  toJSON(): SerializedMemory {
    return { version: 1, steps: structuredClone(this.steps) };
  }

  push(step: MemoryStep): void {
    this.steps.push(step);
  }

  clear(): void {
    this.steps.length = 0;
  }

  /** The conversation a model call sees: the system prompt, then every step as messages. */
  toMessages(systemPrompt: string, options: ToMessagesOptions): Message[] {
    const messages: Message[] = [{ role: "system", content: systemPrompt }];
    const actions = this.steps.filter((step): step is ActionStep => step.type === "action");
    const oldestWithImages = actions.length - options.keepImagesForSteps;
    let actionIndex = 0;
    for (const step of this.steps) {
      switch (step.type) {
        case "task":
          messages.push({ role: "user", content: withImages(`New task:\n${step.task}`, step.images) });
          break;
        case "planning":
          messages.push({ role: "assistant", content: step.plan });
          messages.push({ role: "user", content: "Now proceed and carry out this plan." });
          break;
        case "action": {
          const keepImages = actionIndex++ >= oldestWithImages;
          messages.push(...actionMessages(step, keepImages));
          break;
        }
        case "final-answer":
          if (step.modelOutput !== undefined) messages.push({ role: "assistant", content: step.modelOutput });
          break;
      }
    }
    return messages;
  }
}

const STEP_TYPES = new Set<unknown>(["task", "planning", "action", "final-answer"]);

function parseSaved(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `saved memory is not valid JSON (${(error as Error).message}); pass JSON.stringify(agent.memory) or memory.toJSON()`,
      { cause: error },
    );
  }
}

function actionMessages(step: ActionStep, keepImages: boolean): Message[] {
  const images = step.images ?? [];
  const imageNote =
    images.length && !keepImages
      ? `\n[${images.length} image${images.length === 1 ? "" : "s"} from step ${step.step} removed to save context]`
      : "";
  const shownImages = keepImages ? images : [];
  if (step.toolCalls?.length) {
    const messages: Message[] = [
      {
        role: "assistant",
        content: step.modelOutput,
        toolCalls: step.toolCalls.map(({ id, name, input }) => ({ id, name, input })),
      },
      ...step.toolCalls.map(
        (call): Message => ({
          role: "tool",
          toolCallId: call.id,
          toolName: call.name,
          content: [{ type: "text", text: call.observation }],
          ...(call.isError ? { isError: true } : {}),
        }),
      ),
    ];
    // Images go in a user message: not every provider accepts images inside tool results.
    if (shownImages.length || imageNote) {
      messages.push({
        role: "user",
        content: withImages(`Images returned by the tools:${imageNote}`, shownImages),
      });
    }
    return messages;
  }
  return [
    { role: "assistant", content: step.modelOutput },
    { role: "user", content: withImages(`Observation:\n${step.observation}${imageNote}`, shownImages) },
  ];
}

function withImages(text: string, images: StoredImage[] | undefined): string | ContentPart[] {
  if (!images?.length) return text;
  return [{ type: "text", text }, ...images.map(imagePartOf)];
}

/** Task and action steps saved before memory used spec's image shape load as today's. */
function upgradeImages(step: MemoryStep): MemoryStep {
  if ((step.type === "task" || step.type === "action") && Array.isArray(step.images)) {
    return { ...step, images: step.images.map((image) => upgradeStoredImage(image) as StoredImage) };
  }
  return step;
}
