// Markdown for agent text: markdown-it with raw HTML off, links limited to http(s) and mailto
// and carried in `data-href` (the webview opens them through the host, never by navigation),
// images shown as links (nothing remote is ever loaded). Pure string in, string out, so it is
// tested under Node; the DOM layer sanitizes the result once more.
import MarkdownIt, { type Token } from 'markdown-it';
import { isAllowedLink } from '../transcript/protocol';

const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });

// Keep every link token; the decision to make it clickable is taken below.
md.validateLink = () => true;

md.core.ruler.push('acp_links', (state) => {
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    let openLink: Token | undefined;
    for (const token of block.children) {
      if (token.type === 'link_open') {
        openLink = token;
        const href = String(token.attrGet('href') ?? '');
        token.attrs = [];
        if (isAllowedLink(href)) {
          token.attrSet('data-href', href);
          token.attrSet('title', href);
          token.attrSet('tabindex', '0');
          token.attrSet('role', 'link');
          token.attrSet('class', 'link');
        } else {
          token.tag = 'span';
          token.attrSet('class', 'link-blocked');
          token.attrSet('title', 'Link not opened: only http, https and mailto links are allowed');
        }
      } else if (token.type === 'link_close' && openLink) {
        token.tag = openLink.tag;
        openLink = undefined;
      }
    }
  }
});

// Images are never loaded: an allowed URL becomes a link, anything else plain text.
md.renderer.rules.image = (tokens, index) => {
  const token = tokens[index];
  const src = String(token.attrGet('src') ?? '');
  const alt = md.utils.escapeHtml(token.content || 'image');
  if (isAllowedLink(src)) {
    const escaped = md.utils.escapeHtml(src);
    return `<a class="link image-link" role="link" tabindex="0" data-href="${escaped}" title="${escaped}"><span class="codicon codicon-file-media"></span>${alt}</a>`;
  }
  return `<span class="link-blocked" title="Image not shown">${alt}</span>`;
};

// Tables align by class, since the CSP allows no inline style.
for (const rule of ['th_open', 'td_open'] as const) {
  md.renderer.rules[rule] = (tokens, index, options, _env, self) => {
    const token = tokens[index];
    const style = String(token.attrGet('style') ?? '');
    if (style) {
      token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
      const align = /text-align:(left|right|center)/.exec(style)?.[1];
      if (align) token.attrSet('class', `align-${align}`);
    }
    return self.renderToken(tokens, index, options);
  };
}

/** Renders agent Markdown to HTML that cannot run script or load anything. */
export function renderMarkdown(text: string): string {
  return md.render(text);
}
