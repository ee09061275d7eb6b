// The memory panel: the user's wing in the palace (every wing with its size, the rooms of the
// user's, the newest drawers, the knowledge-graph facts about the user), with a Forget button on
// each drawer and fact. Loaded only when the server has a memory; refreshed after each answer.
import { el } from "./dom.js";

// A drawer's text beyond this shows folded (a filed transcript can be long).
const PREVIEW_CHARS = 280;

export function startMemoryPanel(section) {
  section.hidden = false;
  const body = section.querySelector("#memory-body");
  const status = el("p", { class: "note", role: "status" });
  section.insertBefore(status, body);

  async function refresh() {
    try {
      const response = await fetch("/api/memory");
      const data = await response.json();
      if (!response.ok) throw new Error(data.error);
      body.replaceChildren(render(data));
    } catch (error) {
      status.textContent = `Could not read the memory: ${error.message}`;
    }
  }

  async function forget(id, what) {
    const response = await fetch(`/api/memory/${encodeURIComponent(id)}`, { method: "DELETE" });
    const data = await response.json().catch(() => ({ error: `the server answered ${response.status}` }));
    status.textContent = response.ok
      ? `Forgot ${what}${data.factsEnded && data.forgotten === "drawer" ? ` and ended ${data.factsEnded} fact${data.factsEnded === 1 ? "" : "s"} taken from it` : ""}.`
      : `Could not forget ${what}: ${data.error}`;
    await refresh();
  }

  function forgetButton(id, what) {
    const button = el("button", { type: "button", class: "forget", "data-id": id }, "Forget");
    button.addEventListener("click", () => void forget(id, what));
    return button;
  }

  function render(data) {
    return el(
      "div",
      { class: "memory-columns" },
      el(
        "div",
        { class: "memory-wings" },
        el("h3", {}, `Wing: ${data.wing}`),
        el("p", { class: "note" }, "Rooms"),
        list(
          data.rooms.map((room) => `${room.room} (${room.drawers})`),
          "No rooms yet.",
        ),
        el("p", { class: "note" }, "All wings"),
        list(
          data.wings.map((wing) => `${wing.wing} (${wing.drawers})`),
          "The palace is empty.",
        ),
      ),
      el(
        "div",
        { class: "memory-drawers" },
        el("h3", {}, "Recent drawers"),
        data.recent.length
          ? el(
              "ul",
              {},
              data.recent.map((drawer) =>
                el(
                  "li",
                  { class: "drawer", "data-id": drawer.id },
                  el(
                    "span",
                    { class: "meta" },
                    `${drawer.room} · ${drawer.timestamp.replace("T", " ").slice(0, 19)} `,
                  ),
                  forgetButton(drawer.id, `the drawer in ${drawer.room}`),
                  drawer.content.length > PREVIEW_CHARS
                    ? el(
                        "details",
                        {},
                        el("summary", {}, `${drawer.content.slice(0, PREVIEW_CHARS)}…`),
                        el("pre", { class: "text" }, drawer.content),
                      )
                    : el("p", { class: "drawer-content" }, drawer.content),
                ),
              ),
            )
          : el("p", { class: "note" }, "Nothing filed yet."),
      ),
      el(
        "div",
        { class: "memory-facts" },
        el("h3", {}, "Facts"),
        data.facts.length
          ? el(
              "ul",
              {},
              data.facts.map((fact) =>
                el(
                  "li",
                  { class: "fact", "data-id": fact.id },
                  fact.text,
                  forgetButton(fact.id, `the fact "${fact.text}"`),
                ),
              ),
            )
          : el("p", { class: "note" }, "No facts yet."),
      ),
    );
  }

  document.addEventListener("atrium:answered", () => void refresh());
  void refresh();
}

function list(lines, empty) {
  return lines.length
    ? el(
        "ul",
        {},
        lines.map((line) => el("li", {}, line)),
      )
    : el("p", { class: "note" }, empty);
}
