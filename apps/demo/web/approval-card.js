// A tool call waiting for the user's yes or no, in the step trace: the tool's name, its input as
// text (never markup), and Approve / Deny (Deny asks for an optional reason). The answer goes to
// POST /api/approvals/:id; the server's approval-resolved event then says how the call ended,
// which is also what a timeout or the question's end looks like.
import { el } from "./dom.js";

/**
 * The card's parts for `event` (an `approval-requested` with the server's `approval` id), added
 * to `item`. `answer(id, decision)` sends the decision and resolves to an error message or
 * undefined; `timeoutMs` is how long the server waits before refusing.
 */
export function fillApprovalCard(item, event, answer, timeoutMs) {
  const headingId = `approval-${event.approval}`;
  item.setAttribute("data-approval-id", event.approval ?? "");
  item.setAttribute("data-state", "waiting");
  item.setAttribute("role", "group");
  item.setAttribute("aria-labelledby", headingId);

  const approve = el("button", { type: "button", class: "approve" }, "Approve");
  const deny = el("button", { type: "button", class: "deny", "aria-expanded": "false" }, "Deny…");
  const reason = el("input", {
    type: "text",
    name: "reason",
    class: "deny-reason",
    maxlength: 500,
    autocomplete: "off",
  });
  const sendDenial = el("button", { type: "submit", class: "send-denial" }, "Send denial");
  const cancel = el("button", { type: "button", class: "cancel-denial" }, "Cancel");
  const denyForm = el(
    "form",
    { class: "deny-form", hidden: true },
    el("label", {}, "Reason (optional) ", reason),
    sendDenial,
    cancel,
  );
  const outcome = el(
    "p",
    { class: "approval-outcome meta", role: "status" },
    `Waiting for your answer; without one within ${Math.round(timeoutMs / 1000)} s the call is refused.`,
  );
  item.append(
    el("strong", { class: "label", id: headingId }, `Approval needed: ${event.name} `),
    el("p", { class: "meta" }, `Step ${event.step} wants to call ${event.name} with:`),
    el("pre", { class: "text approval-input" }, event.input),
    el("div", { class: "approval-actions" }, approve, deny),
    denyForm,
    outcome,
  );
  const controls = [approve, deny, reason, sendDenial, cancel];

  async function send(decision) {
    for (const control of controls) control.disabled = true;
    outcome.textContent = "Sending your answer…";
    const error = await answer(event.approval, decision);
    if (item.getAttribute("data-state") !== "waiting") return;
    if (error) {
      outcome.textContent = error;
      outcome.classList.add("bad");
      // The server still waits unless it said the answer came too late or for nothing.
      if (!/already settled|no approval/.test(error))
        for (const control of controls) control.disabled = false;
      return;
    }
    outcome.textContent = decision.approved ? "Approved; waiting for the call to run…" : "Denied; waiting…";
  }

  approve.addEventListener("click", () => void send({ approved: true }));
  deny.addEventListener("click", () => {
    denyForm.hidden = false;
    deny.setAttribute("aria-expanded", "true");
    reason.focus();
  });
  cancel.addEventListener("click", () => {
    denyForm.hidden = true;
    deny.setAttribute("aria-expanded", "false");
    deny.focus();
  });
  denyForm.addEventListener("keydown", (keyboard) => {
    if (keyboard.key === "Escape") cancel.click();
  });
  denyForm.addEventListener("submit", (submitted) => {
    submitted.preventDefault();
    const text = reason.value.trim();
    void send(text ? { approved: false, reason: text } : { approved: false });
  });

  // Right after asking (focus still in the emptied question box), the keyboard goes to the
  // decision; someone typing elsewhere keeps their focus, so a key press never approves by chance.
  const active = document.activeElement;
  if (!active || active === document.body || (active.id === "question" && active.value === "")) {
    approve.focus();
  }
}

/** How the call ended (`approval-resolved`): the outcome shown, every control disabled. */
export function settleApprovalCard(item, event) {
  const approved = event.approved === true;
  item.setAttribute("data-state", approved ? "approved" : "denied");
  for (const control of item.querySelectorAll("button, input")) control.disabled = true;
  item.querySelector(".deny-form").hidden = true;
  const outcome = item.querySelector(".approval-outcome");
  outcome.classList.toggle("bad", !approved);
  outcome.classList.toggle("good", approved);
  outcome.textContent = approved
    ? `Approved: ${event.name} runs.`
    : `Not approved${event.reason ? `: ${event.reason}` : "."}`;
  const focusWasHere = item.contains(document.activeElement) || document.activeElement === document.body;
  if (focusWasHere) document.getElementById("question")?.focus();
}
