// The second guard after markdown-it: HTML is parsed in an inert <template> (no script runs,
// nothing loads), and only known elements and attributes survive.
import { isAllowedLink } from '../transcript/protocol';

const ALLOWED_TAGS = new Set([
  'P', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'A', 'SPAN', 'CODE', 'PRE', 'EM', 'STRONG', 'S', 'DEL',
  'UL', 'OL', 'LI', 'BLOCKQUOTE', 'HR', 'BR', 'TABLE', 'THEAD', 'TBODY', 'TR', 'TH', 'TD',
]);
const ALLOWED_ATTRIBUTES = new Set(['class', 'data-href', 'title', 'role', 'tabindex', 'start', 'colspan', 'rowspan']);

export function sanitizedFragment(html: string): DocumentFragment {
  const template = document.createElement('template');
  template.innerHTML = html;
  clean(template.content);
  return template.content;
}

function clean(parent: ParentNode): void {
  for (let node = parent.firstChild; node; ) {
    const next = node.nextSibling;
    if (node.nodeType === Node.ELEMENT_NODE) {
      const element = node as Element;
      if (!ALLOWED_TAGS.has(element.tagName)) {
        // Keep the text, drop the element: nothing is lost, nothing runs.
        element.replaceWith(document.createTextNode(element.textContent ?? ''));
      } else {
        for (const attribute of [...element.attributes]) {
          const name = attribute.name.toLowerCase();
          if (!ALLOWED_ATTRIBUTES.has(name) || (name === 'data-href' && !isAllowedLink(attribute.value))) {
            element.removeAttribute(attribute.name);
          }
        }
        clean(element);
      }
    } else if (node.nodeType !== Node.TEXT_NODE) {
      node.remove();
    }
    node = next;
  }
}
