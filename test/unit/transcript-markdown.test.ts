// Agent text rendered as Markdown can never run script, navigate or load remote content.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allowedLink, isAllowedLink } from '../../src/transcript/protocol';
import { renderMarkdown } from '../../src/webview/markdown';

test('raw HTML is escaped, never rendered', () => {
  const html = renderMarkdown('<script>window.__pwned=1</script>\n\n<img src=x onerror="window.__pwned=1"> <b onmouseover=alert(1)>x</b>');
  assert.doesNotMatch(html, /<script|<img|<b /i);
  assert.match(html, /&lt;script&gt;/);
});

test('javascript:, data: and vbscript: links are not clickable', () => {
  for (const href of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', ' javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:msgbox(1)', 'java\tscript:alert(1)']) {
    const html = renderMarkdown(`[click](${href}) and <${href}>`);
    assert.doesNotMatch(html, /href=/i, href);
    assert.doesNotMatch(html, /data-href="(?!https?:|mailto:)/i, href);
  }
});

test('http, https and mailto links are carried in data-href, never href', () => {
  const html = renderMarkdown('[a](https://example.com/x?y=1) [b](http://example.com) [c](mailto:me@example.com) https://auto.example.com');
  assert.doesNotMatch(html, / href=/);
  assert.match(html, /data-href="https:\/\/example.com\/x\?y=1"/);
  assert.match(html, /data-href="http:\/\/example.com"/);
  assert.match(html, /data-href="mailto:me@example.com"/);
  assert.match(html, /data-href="https:\/\/auto.example.com"/);
});

test('relative and file links are shown as blocked text', () => {
  const html = renderMarkdown('[rel](../etc/passwd) [file](file:///etc/passwd) [cmd](command:workbench.action.quit)');
  assert.doesNotMatch(html, /data-href/);
  assert.equal(html.match(/class="link-blocked"/g)?.length, 3);
});

test('remote images are never loaded: they become links', () => {
  const html = renderMarkdown('![tracker](https://evil.example/pixel.png) ![x](javascript:alert(1)) ![d](data:image/png;base64,AAAA)');
  assert.doesNotMatch(html, /<img/i);
  assert.match(html, /data-href="https:\/\/evil.example\/pixel.png"/);
  assert.doesNotMatch(html, /javascript:/);
});

test('attribute injection through a link title or URL is escaped', () => {
  const html = renderMarkdown('[x](https://e.com/"onmouseover="alert(1) "t\\" onclick=alert(1)")');
  assert.doesNotMatch(html, /"\s*onmouseover=|"\s*onclick=/i);
});

test('table alignment uses classes, not inline style (the CSP allows none)', () => {
  const html = renderMarkdown('| a | b |\n|:-|-:|\n| 1 | 2 |');
  assert.doesNotMatch(html, /style=/);
  assert.match(html, /class="align-left"/);
  assert.match(html, /class="align-right"/);
});

test('code blocks keep their text escaped', () => {
  const html = renderMarkdown('```html\n<script>alert(1)</script>\n```');
  assert.match(html, /<pre><code class="language-html">&lt;script&gt;/);
});

test('isAllowedLink accepts only absolute http, https and mailto URLs', () => {
  assert.ok(isAllowedLink('https://example.com'));
  assert.ok(isAllowedLink('HTTP://EXAMPLE.COM/a'));
  assert.ok(isAllowedLink('mailto:a@b.c'));
  for (const bad of ['javascript:alert(1)', 'https:example.com', 'https://', '//example.com', 'file:///x', 'vscode://x', 'https://a.com/\nb', 'command:x', '']) {
    assert.equal(isAllowedLink(bad), false, bad);
  }
});

test('a link shown as a link is the link that opens: whitespace around it dropped, the scheme lower-cased', () => {
  assert.equal(allowedLink(' https://example.com/a'), 'https://example.com/a');
  assert.equal(allowedLink('\thttps://example.com/a \n'), 'https://example.com/a');
  assert.equal(allowedLink('HTTPS://Example.com/A'), 'https://Example.com/A');
  assert.equal(allowedLink('MailTo:a@b.c'), 'mailto:a@b.c');
  for (const bad of [' javascript:alert(1)', 'https://a.com/\u0085b', 'https:// a.com', ' command:x', '\u0000https://a.com']) {
    assert.equal(allowedLink(bad), undefined, JSON.stringify(bad));
  }
});

test('the hostile-strings corpus rendered as transcript Markdown: no script, no load, every link allowed', async () => {
  const { hostileStrings } = await import('../hostile/corpus');
  let tried = 0;
  for (const { kind, text } of hostileStrings()) {
    const html = renderMarkdown(text);
    tried++;
    const what = `${kind}: ${JSON.stringify(text.slice(0, 80))}`;
    assert.doesNotMatch(html, /<(script|img|iframe|svg|style|object|embed|form|input)\b/i, what);
    for (const [tag] of html.matchAll(/<[a-zA-Z][^>]*>/g)) assert.doesNotMatch(tag, /\s(href|src|on[a-z]+|style)=/i, `${what}: ${tag}`);
    for (const [, href] of html.matchAll(/data-href="([^"]*)"/g)) {
      const decoded = href.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>');
      assert.ok(isAllowedLink(decoded), `${what}: link ${decoded}`);
    }
  }
  console.log(`hostile strings tried through the transcript Markdown: ${tried}; escapes: 0`);
});
