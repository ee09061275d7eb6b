// The one way this page builds DOM: strings always become text nodes, never markup, so docs
// output, questions and answers (all untrusted) are shown as the characters they are.

/**
 * `el("p", { class: "x" }, "text", child)`: an element with attributes and children. Attribute
 * values go through setAttribute (no `on*` handlers accepted), children that are strings become
 * text nodes, null/undefined/false children are skipped.
 */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on"))
      throw new Error(`el(): event handler attribute ${name} refused; use addEventListener`);
    node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, ...children);
  return node;
}

export function append(node, ...children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function formatBytes(bytes) {
  return `${bytes.toLocaleString("en-US")} bytes`;
}

export function formatMs(ms) {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}
