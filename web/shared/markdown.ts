/**
 * The Markdown the pages render (a template's description, an event kind's description): a small
 * safe subset turned into elements with `h()`, so every character of the source ends up in a text
 * node and no source can become markup, script or a style. Blocks: paragraphs, `-`/`*` lists,
 * fenced code, `#` headings (drawn as strong lines, under the page's own headings). Inline: `code`,
 * **strong**, *emphasis*, and [links](https://…) whose target is http(s) only (any other target,
 * `javascript:` included, stays text). A library (marked with DOMPurify) would be about 50 KB for
 * the same few constructs.
 */
import { h } from './dom.ts';

type Inline = Node | string;

// Emphasis never spans code, and `_` emphasises only between word boundaries (PENDING_VERIFICATION is a word).
const INLINE =
  /`([^`]+)`|\*\*([^*`]+)\*\*|\*([^*\s`][^*`]*)\*|(?<!\w)_([^_\s`][^_`]*)_(?!\w)|\[([^\]]+)\]\(([^)\s]+)\)/g;

/** Inline Markdown of one block's text → text and elements. */
export function inline(text: string): Inline[] {
  const out: Inline[] = [];
  let at = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index > at) out.push(text.slice(at, match.index));
    const [whole, code, strong, em, em2, label, href] = match;
    if (code !== undefined) out.push(h('code', {}, code));
    else if (strong !== undefined) out.push(h('strong', {}, ...inline(strong)));
    else if (em !== undefined || em2 !== undefined) out.push(h('em', {}, ...inline((em ?? em2)!)));
    else if (label !== undefined && href !== undefined && /^https?:\/\//i.test(href))
      out.push(h('a', { href, rel: 'noopener noreferrer nofollow', target: '_blank' }, label));
    else out.push(whole);
    at = match.index + whole.length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/** A Markdown text → block elements (inside a `div.markdown` the caller places). */
export function markdown(source: string): HTMLElement {
  const root = h('div', { class: 'markdown' });
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  for (let i = 0; i < lines.length; ) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
    } else if (line.startsWith('```')) {
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) code.push(lines[i]!);
      i++;
      root.append(h('pre', {}, h('code', {}, code.join('\n'))));
    } else if (/^\s*[-*] /.test(line)) {
      const items: HTMLElement[] = [];
      for (; i < lines.length && /^\s*[-*] /.test(lines[i]!); i++)
        items.push(h('li', {}, ...inline(lines[i]!.replace(/^\s*[-*] /, ''))));
      root.append(h('ul', {}, items));
    } else if (/^#{1,6} /.test(line)) {
      root.append(h('p', {}, h('strong', {}, ...inline(line.replace(/^#{1,6} /, '')))));
      i++;
    } else {
      const paragraph: string[] = [];
      for (; i < lines.length && lines[i]!.trim() !== '' && !/^(```|\s*[-*] |#{1,6} )/.test(lines[i]!); i++)
        paragraph.push(lines[i]!.trim());
      root.append(h('p', {}, ...inline(paragraph.join(' '))));
    }
  }
  return root;
}
