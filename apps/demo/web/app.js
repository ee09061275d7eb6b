// The page: reads the server's configuration, sends each question (with its images) to
// POST /api/ask, and shows the streamed events in the step trace and the answer in the chat.
import { el, formatBytes, formatMs } from "./dom.js";
import { readServerSentEvents } from "./sse-reader.js";
import { startTrace } from "./trace-view.js";

const $ = (id) => document.getElementById(id);

const config = await loadConfig();
if (config) setUp(config);

async function loadConfig() {
  try {
    const response = await fetch("/api/config");
    if (!response.ok) throw new Error(`the server answered ${response.status}`);
    return await response.json();
  } catch (error) {
    showFormError(
      `Could not load the demo's configuration: ${error.message}. Is npm run demo -- --web still running?`,
    );
    return undefined;
  }
}

function setUp(config) {
  fillSelect($("model"), config.models, (m) => (m.scripted ? `${m.label} (no API key needed)` : m.label));
  fillSelect($("executor"), config.executors, (e) => e.label);
  // A switch with one choice is shown, but it says there is nothing to switch to yet.
  $("executor").disabled = config.executors.length < 2;
  // An executor this host cannot run (the micro-VM without QEMU) is not offered; the tooltip says why.
  $("executor").title = (config.unavailableExecutors ?? [])
    .map((e) => `${e.label} is ${e.reason}`)
    .join("\n");
  $("model").addEventListener("change", () => fitExecutors(config));
  fitExecutors(config);
  $("who").textContent =
    `Asking as ${config.user.id}${config.user.groups?.length ? ` (groups: ${config.user.groups.join(", ")})` : ""} · tools: ${config.tools.join(", ")}${config.approvals === "memory-writes" ? " · memory writes wait for your approval in the trace" : ""}`;
  $("images").addEventListener("change", () => showAttachments(config.limits));
  $("ask-form").addEventListener("submit", (event) => {
    event.preventDefault();
    void ask(config);
  });
  $("question").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      $("ask-form").requestSubmit();
    }
  });
  if (config.memory) void import("./memory-panel.js").then((panel) => panel.startMemoryPanel($("memory")));
}

/** Offers only the executors whose language the chosen model writes (the scripted one: JavaScript and Python). */
function fitExecutors(config) {
  const model = config.models.find((m) => m.id === $("model").value);
  const unfit = [];
  for (const option of $("executor").options) {
    const executor = config.executors.find((e) => e.id === option.value);
    option.disabled = Boolean(model?.languages && !model.languages.includes(executor.language));
    if (option.disabled) unfit.push(executor);
  }
  if ($("executor").selectedOptions[0]?.disabled) {
    $("executor").value = [...$("executor").options].find((option) => !option.disabled)?.value ?? "";
  }
  const note = $("executor-note");
  note.hidden = unfit.length === 0;
  note.textContent = unfit.length
    ? `${model.label} writes ${model.languages.join(" and ")} only; ${unfit.map((e) => e.label).join(", ")} need${unfit.length === 1 ? "s" : ""} a model that writes ${[...new Set(unfit.map((e) => e.language))].join(" or ")} (set ATRIUM_MODEL).`
    : "";
}

function fillSelect(select, choices, text) {
  select.replaceChildren(...choices.map((choice) => el("option", { value: choice.id }, text(choice))));
}

/** The chosen files, checked here too so a mistake shows before anything is sent. */
function chosenImages(limits) {
  const files = [...$("images").files];
  if (files.length > limits.maxImages)
    return { error: `Attach at most ${limits.maxImages} images (${files.length} chosen).` };
  for (const file of files) {
    if (file.size > limits.maxImageBytes) {
      return {
        error: `${file.name} is ${formatBytes(file.size)}; an image may have at most ${formatBytes(limits.maxImageBytes)}.`,
      };
    }
  }
  return { files };
}

function showAttachments(limits) {
  const { files, error } = chosenImages(limits);
  showFormError(error);
  $("attachments").replaceChildren(
    ...(files ?? []).map((file) =>
      el(
        "li",
        {},
        thumbnail(file),
        `${file.name} · ${file.type || "unknown type"} · ${formatBytes(file.size)}`,
      ),
    ),
  );
}

function thumbnail(file) {
  const image = el("img", { alt: file.name, class: "thumb" });
  image.src = URL.createObjectURL(file);
  return image;
}

async function ask(config) {
  const question = $("question").value.trim();
  if (!question) return showFormError("Type a question first.");
  const { files, error } = chosenImages(config.limits);
  if (error) return showFormError(error);
  showFormError(undefined);

  const form = new FormData();
  form.append("question", question);
  form.append("model", $("model").value);
  form.append("executor", $("executor").value);
  for (const file of files) form.append("images", file, file.name);

  $("messages").append(
    el(
      "li",
      { class: "message user" },
      el("p", {}, question),
      files.length ? el("div", { class: "message-images" }, files.map(thumbnail)) : null,
    ),
  );
  const pending = el(
    "li",
    { class: "message assistant pending" },
    el("p", {}, "Working… (see the step trace)"),
  );
  $("messages").append(pending);
  $("question").value = "";
  $("images").value = "";
  $("attachments").replaceChildren();
  $("send").disabled = true;

  // The run token of this question's stream: only this page can answer its approvals.
  let run;
  const show = startTrace($("trace"), question, {
    timeoutMs: config.approvalTimeoutMs,
    answer: (id, decision) => answerApproval(id, run, decision),
  });
  let answered = false;
  try {
    const response = await fetch("/api/ask", { method: "POST", body: form });
    if (!response.ok) {
      const body = await response.json().catch(() => ({ error: `the server answered ${response.status}` }));
      throw new Error(body.error);
    }
    for await (const message of readServerSentEvents(response)) {
      const event = JSON.parse(message.data);
      if (event.type === "received") run = event.run;
      show(event);
      if (event.type === "answer") {
        pending.replaceWith(answerMessage(event));
        answered = true;
        // The memory panel (when there is one) shows what this question filed.
        document.dispatchEvent(new CustomEvent("atrium:answered"));
      } else if (event.type === "error" && !answered) {
        pending.append(el("p", { class: "bad" }, event.error?.message ?? "error"));
      }
    }
    if (!answered) throw new Error("the stream ended without an answer");
  } catch (error) {
    pending.classList.remove("pending");
    pending.classList.add("failed");
    pending.replaceChildren(el("p", { class: "bad" }, error.message));
    showFormError(error.message);
  } finally {
    $("send").disabled = false;
    $("question").focus();
  }
}

/** Sends an Approve or Deny; resolves to the server's error message, or undefined when it took it. */
async function answerApproval(id, run, decision) {
  try {
    const response = await fetch(`/api/approvals/${encodeURIComponent(id)}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ run, ...decision }),
    });
    if (response.ok) return undefined;
    const body = await response.json().catch(() => ({}));
    return body.error ?? `the server answered ${response.status}`;
  } catch (error) {
    return `Could not send the answer: ${error.message}. Is npm run demo -- --web still running?`;
  }
}

function answerMessage(event) {
  const ok = event.state === "success";
  return el(
    "li",
    {
      class: `message assistant answer ${ok ? "" : "failed"}`,
      "data-received-at": performance.now().toFixed(1),
      "data-total-ms": event.timing.totalMs.toFixed(1),
    },
    event.answer
      ? el("p", { class: "answer-text" }, event.answer)
      : el("p", { class: "bad" }, `No answer (the run ended: ${event.state}; the trace says why).`),
    event.citations.length
      ? el(
          "ul",
          { class: "citations" },
          event.citations.map((citation) =>
            el(
              "li",
              { class: citation.verified ? "verified" : "unverified" },
              el("code", {}, citation.path),
              citation.verified ? " ✓ read in this run" : " (not seen in any tool output)",
            ),
          ),
        )
      : null,
    el(
      "p",
      { class: "meta" },
      `${event.steps} step${event.steps === 1 ? "" : "s"} · ${formatMs(event.timing.totalMs)}`,
    ),
  );
}

function showFormError(message) {
  const box = $("form-error");
  box.textContent = message ?? "";
  box.hidden = !message;
}
