import { ValidationError, type ValidationIssue } from "@atrium/spec";
import type { DrawerDraft } from "../../src/drawers/drawer.js";
import { parseLocomoDate } from "./locomo-date.js";

/**
 * The LoCoMo long-term memory benchmark's file format (snap-research/LoCoMo `locomo10.json`): an
 * array of samples, each a multi-session dialogue between two speakers plus questions whose
 * `evidence` names the turns (`dia_id`, "D<session>:<turn>") that hold the answer.
 */

export interface LocomoTurn {
  /** The dataset's `dia_id`, e.g. "D3:5". */
  turnId: string;
  speaker: string;
  /** The turn's text; with ` [image: <caption>]` appended when the speaker shared a picture. */
  content: string;
}

export interface LocomoSession {
  /** 1-based session number from the `session_<n>` key. */
  number: number;
  /** ISO 8601 from `session_<n>_date_time`. */
  timestamp: string;
  turns: LocomoTurn[];
}

export interface LocomoQuestion {
  question: string;
  /** Stringified (some answers are numbers); the adversarial category has none. */
  answer?: string;
  adversarialAnswer?: string;
  category: number;
  /** `evidence` as written in the file. */
  evidence: string[];
  /** The distinct evidence ids that name a turn of this conversation, in file order. */
  evidenceTurns: string[];
}

export interface LocomoConversation {
  sampleId: string;
  speakers: [string, string];
  sessions: LocomoSession[];
  questions: LocomoQuestion[];
  /** One draft per turn, in conversation order (see `locomoDrafts`). */
  drafts: DrawerDraft[];
}

/** The room a session's turns are filed in. */
export function locomoRoom(sessionNumber: number): string {
  return `session-${sessionNumber}`;
}

/** Parses a LoCoMo file's text. Every problem found is named in one `ValidationError`. */
export function loadLocomo(text: string): LocomoConversation[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(
      "LoCoMo file",
      [
        {
          path: [],
          message: `is not JSON (${(error as Error).message}); pass LoCoMo's locomo10.json or a file shaped like it`,
        },
      ],
      { cause: error },
    );
  }
  const issues: ValidationIssue[] = [];
  if (!Array.isArray(data)) {
    throw new ValidationError("LoCoMo file", [
      { path: [], message: "must be a JSON array of samples ({ sample_id, conversation, qa })" },
    ]);
  }
  const conversations = data.flatMap((sample, index) => {
    const conversation = readSample(sample, [index], issues);
    return conversation ? [conversation] : [];
  });
  if (issues.length > 0) throw new ValidationError("LoCoMo file", issues);
  return conversations;
}

function readSample(sample: unknown, path: (string | number)[], issues: ValidationIssue[]) {
  if (!isRecord(sample)) {
    issues.push({ path, message: "must be an object with sample_id, conversation and qa" });
    return undefined;
  }
  const sampleId = sample.sample_id;
  const conversation = sample.conversation;
  const qa = sample.qa;
  const before = issues.length;
  if (typeof sampleId !== "string" || sampleId === "") {
    issues.push({ path: [...path, "sample_id"], message: "must be a non-empty string" });
  }
  if (!isRecord(conversation)) issues.push({ path: [...path, "conversation"], message: "must be an object" });
  if (!Array.isArray(qa)) issues.push({ path: [...path, "qa"], message: "must be an array of questions" });
  if (issues.length > before || !isRecord(conversation) || !Array.isArray(qa)) return undefined;
  const id = sampleId as string;

  const speakers = [conversation.speaker_a, conversation.speaker_b];
  speakers.forEach((speaker, i) => {
    if (typeof speaker !== "string") {
      issues.push({
        path: [...path, "conversation", i === 0 ? "speaker_a" : "speaker_b"],
        message: "must be a string",
      });
    }
  });

  const sessions: LocomoSession[] = [];
  for (const [key, value] of Object.entries(conversation)) {
    const session = /^session_(\d+)$/.exec(key);
    if (!session) continue;
    const number = Number(session[1]);
    const sessionPath = [...path, "conversation", key];
    const dateText = conversation[`${key}_date_time`];
    let timestamp = "";
    if (typeof dateText !== "string") {
      issues.push({
        path: [...path, "conversation", `${key}_date_time`],
        message: 'must be a string like "1:56 pm on 8 May, 2023"',
      });
    } else {
      try {
        timestamp = parseLocomoDate(dateText);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        issues.push({
          path: [...path, "conversation", `${key}_date_time`],
          message: error.issues[0]!.message,
        });
      }
    }
    if (!Array.isArray(value)) {
      issues.push({ path: sessionPath, message: "must be an array of turns" });
      continue;
    }
    const turns = value.flatMap((turn, index) => {
      const read = readTurn(turn, [...sessionPath, index], issues);
      return read ? [read] : [];
    });
    sessions.push({ number, timestamp, turns });
  }
  sessions.sort((a, b) => a.number - b.number);

  const turnIds = new Set<string>();
  for (const session of sessions) {
    for (const turn of session.turns) {
      if (turnIds.has(turn.turnId)) {
        issues.push({
          path: [...path, "conversation"],
          message: `dia_id ${turn.turnId} appears twice; turn ids must be unique`,
        });
      }
      turnIds.add(turn.turnId);
    }
  }

  const questions = qa.flatMap((question, index) => {
    const read = readQuestion(question, [...path, "qa", index], turnIds, issues);
    return read ? [read] : [];
  });
  if (issues.length > before) return undefined;
  const pair: [string, string] = [speakers[0] as string, speakers[1] as string];
  return { sampleId: id, speakers: pair, sessions, questions, drafts: locomoDrafts(id, sessions) };
}

function readTurn(
  turn: unknown,
  path: (string | number)[],
  issues: ValidationIssue[],
): LocomoTurn | undefined {
  if (!isRecord(turn)) {
    issues.push({ path, message: "must be an object with speaker, dia_id and text" });
    return undefined;
  }
  const { speaker, dia_id: turnId, text, blip_caption: caption } = turn;
  const before = issues.length;
  if (typeof speaker !== "string") issues.push({ path: [...path, "speaker"], message: "must be a string" });
  if (typeof turnId !== "string" || turnId === "")
    issues.push({ path: [...path, "dia_id"], message: "must be a non-empty string" });
  if (typeof text !== "string") issues.push({ path: [...path, "text"], message: "must be a string" });
  if (caption !== undefined && typeof caption !== "string") {
    issues.push({ path: [...path, "blip_caption"], message: "must be a string when present" });
  }
  if (issues.length > before) return undefined;
  // The picture is part of what was said: "look at this" means little without its caption.
  const content =
    typeof caption === "string" && caption.trim() !== "" ? `${text} [image: ${caption}]` : (text as string);
  return { turnId: turnId as string, speaker: speaker as string, content };
}

function readQuestion(
  question: unknown,
  path: (string | number)[],
  turnIds: ReadonlySet<string>,
  issues: ValidationIssue[],
): LocomoQuestion | undefined {
  if (!isRecord(question)) {
    issues.push({ path, message: "must be an object with question, evidence and category" });
    return undefined;
  }
  const { question: text, answer, adversarial_answer: adversarialAnswer, category, evidence = [] } = question;
  const before = issues.length;
  if (typeof text !== "string") issues.push({ path: [...path, "question"], message: "must be a string" });
  if (typeof category !== "number") issues.push({ path: [...path, "category"], message: "must be a number" });
  if (!Array.isArray(evidence) || evidence.some((id) => typeof id !== "string")) {
    issues.push({ path: [...path, "evidence"], message: "must be an array of turn id strings" });
  }
  if (issues.length > before) return undefined;
  const written = evidence as string[];
  // A few ids in the published data list two turns in one string ("D8:6; D9:17"); ids that still
  // name no turn (a bare "D") are ignored, as the evaluation protocol says.
  const named = written.flatMap((id) => id.split(/[;,]/)).map((id) => id.trim());
  const evidenceTurns = [...new Set(named.filter((id) => turnIds.has(id)))];
  const read: LocomoQuestion = {
    question: text as string,
    category: category as number,
    evidence: written,
    evidenceTurns,
  };
  if (answer !== undefined && answer !== null) read.answer = String(answer);
  if (adversarialAnswer !== undefined && adversarialAnswer !== null)
    read.adversarialAnswer = String(adversarialAnswer);
  return read;
}

/**
 * One drawer per turn: wing = the sample id, room = the session, hall "conversations", the
 * turn's `dia_id` kept as `turnId`; `position` counts turns across the whole conversation so a
 * turn's neighbours are the turns before and after it.
 */
export function locomoDrafts(sampleId: string, sessions: readonly LocomoSession[]): DrawerDraft[] {
  const drafts: DrawerDraft[] = [];
  for (const session of sessions) {
    for (const turn of session.turns) {
      drafts.push({
        content: turn.content,
        wing: sampleId,
        room: locomoRoom(session.number),
        hall: "conversations",
        source: sampleId,
        position: drafts.length,
        speaker: turn.speaker,
        turnId: turn.turnId,
        sessionId: `${sampleId}/${locomoRoom(session.number)}`,
        timestamp: session.timestamp,
      });
    }
  }
  return drafts;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
