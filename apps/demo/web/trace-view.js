// One question's step trace: each assistant event the server streams becomes a list item as it
// arrives. Every item records when it arrived (data-received-at, performance.now() in ms), so the
// order and timing the user saw can be checked, not just the final state.
import { fillApprovalCard, settleApprovalCard } from "./approval-card.js";
import { el, formatBytes, formatMs } from "./dom.js";

// The docs tools show up as `docs-command` events (command, output, exit code) once they finish;
// their raw tool-call and tool-result events would only repeat them.
const DOCS_TOOLS = new Set(["bash", "search"]);

/**
 * Starts the trace of one question in `list`; returns `show(event)` for its events.
 * `approvals.answer(id, decision)` sends an Approve or Deny (resolving to an error message or
 * undefined); `approvals.timeoutMs` is how long the server waits for one.
 */
export function startTrace(list, question, approvals) {
  const items = el("ol", { class: "trace-items" });
  // The newest question's trace stays open; earlier ones fold to their question.
  for (const earlier of list.querySelectorAll(":scope > .trace-group > details")) earlier.open = false;
  const group = el(
    "li",
    { class: "trace-group" },
    el("details", { open: true }, el("summary", { class: "trace-question" }, question), items),
  );
  list.prepend(group);

  function add(kind, ...children) {
    const item = el(
      "li",
      {
        class: `trace-item trace-${kind}`,
        "data-kind": kind,
        "data-received-at": performance.now().toFixed(1),
      },
      ...children,
    );
    items.append(item);
    return item;
  }

  // The model's reply of the current step, growing as its deltas arrive.
  let writing;
  // Approval cards by tool call id, until their approval-resolved.
  const cards = new Map();

  return function show(event) {
    switch (event.type) {
      case "model-delta":
        if (!writing || writing.step !== event.step) {
          const text = pre("", "model-text");
          const summary = el("summary", {}, "Model writing…");
          add("model", el("details", { open: true }, summary, text));
          writing = { step: event.step, text, summary };
        }
        writing.text.textContent += event.text;
        return undefined;
      case "model-output":
        // Streamed or not, the step's reply ends up folded: the code item below shows what ran.
        if (!writing || writing.step !== event.step) {
          const text = pre("", "model-text");
          const summary = el("summary", {});
          add("model", el("details", {}, summary, text));
          writing = { step: event.step, text, summary };
        }
        writing.text.textContent = event.text;
        writing.summary.textContent = `Model output (${event.usage?.outputTokens ?? "?"} tokens)`;
        writing.summary.parentElement.open = false;
        return undefined;
      case "received":
        return add(
          "received",
          label("Received"),
          event.images.length
            ? `${event.images.length} image${event.images.length === 1 ? "" : "s"}: ${event.images.map((image) => `${image.name} (${image.mediaType}, ${formatBytes(image.bytes)})`).join("; ")} · `
            : "",
          `executor ${event.executor} · model ${event.model}`,
        );
      case "question":
        return add("question", label("Asked"), ` as ${event.user}, model ${event.model}`);
      case "run-start":
        return event.images?.length ? add("images", label("Images"), imagesText(event.images)) : undefined;
      case "step-start":
        return add("step", `Step ${event.step}`);
      case "planning":
        return add("plan", label("Plan"), pre(event.plan));
      case "code":
        return add("code", label(`Code (${event.language})`), pre(event.code, "code"));
      case "tool-call":
        if (DOCS_TOOLS.has(event.name)) return undefined;
        return add("tool-call", label("Tool call"), `${event.name} `, el("code", {}, event.input));
      case "tool-result":
        if (DOCS_TOOLS.has(event.name)) return undefined;
        return add(
          "tool-result",
          label(`Tool result: ${event.name}`),
          event.error ? el("p", { class: "bad" }, event.error) : pre(event.output),
        );
      case "approval-requested": {
        const item = add("approval");
        fillApprovalCard(item, event, approvals.answer, approvals.timeoutMs);
        cards.set(event.id, item);
        return item;
      }
      case "approval-resolved":
        if (cards.has(event.id)) settleApprovalCard(cards.get(event.id), event);
        cards.delete(event.id);
        return undefined;
      case "docs-command":
        return add(
          "docs-command",
          el("code", { class: "command" }, `$ ${event.command}`),
          event.stdout ? pre(event.stdout, "output") : null,
          event.stderr ? pre(event.stderr, "output bad") : null,
          el(
            "p",
            { class: "meta" },
            `exit ${event.exitCode} · ${formatMs(event.durationMs)}`,
            event.stdoutChars > event.stdout.length
              ? ` · output cut, ${event.stdoutChars} characters in all`
              : "",
          ),
        );
      case "observation":
        return add(
          "observation",
          label("Observation"),
          pre(event.text),
          event.images?.length ? el("p", { class: "meta" }, imagesText(event.images)) : null,
        );
      case "memory-recalled":
        return add(
          "memory",
          label(
            `Memory recalled${event.via === "tool" ? " by the agent" : event.via === "question" ? " for the question" : ""} (${event.memories.length}, ${formatMs(event.durationMs)})`,
          ),
          el(
            "ul",
            { class: "memories" },
            event.memories.map((memory) => el("li", {}, memory.content)),
          ),
        );
      case "memory-filed":
        return add(
          "memory",
          label(
            event.via === "transcript"
              ? `Session transcript filed (${event.ids.length} drawer${event.ids.length === 1 ? "" : "s"}${event.sessionId ? `, session ${event.sessionId}` : ""}, ${formatMs(event.durationMs)})`
              : `Memory filed${event.via === "tool" ? " by the agent" : ""} (${event.ids.length}, ${formatMs(event.durationMs)})`,
          ),
          event.memories?.length
            ? el(
                "ul",
                { class: "memories" },
                event.memories.map((memory) => el("li", {}, memory.content)),
              )
            : el("p", { class: "meta" }, event.ids.join(", ")),
        );
      case "final-answer":
        return add("final", label("final_answer"), pre(JSON.stringify(event.output, null, 2)));
      case "error":
        return add(
          "error",
          label(`Error${event.error?.code ? ` (${event.error.code})` : ""}`),
          event.error?.message ?? "",
        );
      case "run-end":
        return add(
          "run-end",
          `Run ended: ${event.state}, ${event.steps} step${event.steps === 1 ? "" : "s"}, ${formatMs(event.durationMs)}`,
        );
      case "answer":
        // A call still waiting when the question ended can no longer be answered.
        for (const [id, card] of cards) {
          settleApprovalCard(card, { id, approved: false, reason: "the question ended first" });
        }
        cards.clear();
        return add(
          "answer",
          label("Answer"),
          `${event.state} · ${formatMs(event.timing.totalMs)} (docs ${formatMs(event.timing.retrievalMs)}, model ${formatMs(event.timing.modelMs)}, sandbox ${formatMs(event.timing.executionMs)}, memory ${formatMs(event.timing.memoryMs)})`,
        );
      default:
        // step-end, tool-progress: the items above already show what they say.
        return undefined;
    }
  };
}

export function imagesText(images) {
  const sizes = images.map((image) => `${image.mediaType}, ${formatBytes(image.bytes)}`).join("; ");
  return `${images.length} image${images.length === 1 ? "" : "s"} sent to the model: ${sizes}`;
}

function label(text) {
  return el("strong", { class: "label" }, `${text} `);
}

function pre(text, className = "text") {
  return el("pre", { class: className }, text);
}
