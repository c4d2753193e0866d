// The pages' tiny view helper (the guest page's script and the console's board both use it):
// elements from tag, attributes and children. Text always goes in as text nodes, never as HTML, so
// a venue's `<script>` stays words on the screen.

type Child = Node | string | number | null | undefined | false;
type Attr = string | number | boolean | null | undefined | ((event: Event) => void);

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, Attr> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'object' ? child : String(child));
  }
}

/** Replaces an element's children. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/**
 * Names as a list, each in its own <bdi> (a Latin option name in an Arabic page keeps its
 * direction), between the language's comma (the Arabic "،" in Arabic).
 */
export function isolatedList(names: readonly string[], comma: string): (HTMLElement | string)[] {
  return names.flatMap((name, i) => (i === 0 ? [h('bdi', {}, name)] : [comma, h('bdi', {}, name)]));
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T | null {
  return document.getElementById(id) as T | null;
}

/** The server's data block (a JSON script element: data, never executed). */
export function pageData<T>(): T | null {
  const el = byId('carta-data');
  return el?.textContent ? (JSON.parse(el.textContent) as T) : null;
}
