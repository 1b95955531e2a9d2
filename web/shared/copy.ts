import { announce } from './dom.ts';

/**
 * To the clipboard where the page may write it (a secure context: HTTPS, or localhost); elsewhere
 * the shown text is selected for the reader's own copy, and the page says so.
 */
export async function copyText(shown: HTMLElement, text: string, what: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    announce(`${what} copied.`);
  } catch {
    window.getSelection()?.selectAllChildren(shown);
    announce(`${what} selected: copy it with Ctrl+C (⌘C on a Mac).`);
  }
}
