/**
 * The pages' whole view layer: `h()` makes an element from a tag, attributes and children, and
 * text always goes in as text nodes, never as HTML, so a template name or a response excerpt
 * cannot become markup. A few lines instead of a view library: the pages redraw a section at a
 * time on an answer, which needs no diffing.
 */
type Child = Node | string | number | null | undefined | false | readonly Child[];
type Attributes = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces what `parent` shows. */
export function show(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

export const byId = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing from the page`);
  return element as T;
};

/** A status said in words and a symbol, so it reads without colour; the class only adds colour. */
export function badge(status: string): HTMLElement {
  const symbol: Record<string, string> = {
    ENABLED: '✔',
    succeeded: '✔',
    PENDING_VERIFICATION: '…',
    pending: '…',
    DISABLED: '✖',
    failed: '✖',
  };
  return h('span', { class: `badge badge-${status.toLowerCase()}` }, `${symbol[status] ?? '•'} ${status}`);
}

/** A line in the page's live region, read out by screen readers. */
export function announce(message: string, kind: 'ok' | 'error' = 'ok'): void {
  const region = byId('status');
  show(
    region,
    h(
      'p',
      { class: kind === 'error' ? 'notice notice-error' : 'notice' },
      kind === 'error' ? `Error: ${message}` : message,
    ),
  );
}

export const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : '—');
