// Agent text as plain text on VS Code's surfaces, over the whole hostile-strings corpus: no link
// in notifications, no icon in quick picks, no Markdown (links, autolinks, HTML, emphasis) in
// tooltips, no bidi override, control character or lone surrogate anywhere, every line bounded.
// Ordinary text passes unchanged.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import MarkdownIt from 'markdown-it';
import { MAX_BLOCK, MAX_LINE, markdownText, notificationText, plainBlock, plainLine, quickPickText, scriptJson } from '../../src/ui/common/plainText';
import { hostileStrings } from '../hostile/corpus';

const corpus = hostileStrings();
// A CommonMark renderer with GFM-style autolinks and HTML on: stricter than VS Code's hovers.
const markdown = new MarkdownIt({ html: true, linkify: true });

/** What VS Code's notification link parser needs: `[label](` directly followed by a target. */
const NOTIFICATION_LINK = /\[[^\]]+\]\((?:https?:\/\/|command:|file:)/i;
/** A `$(name)` icon that is not escaped by a backslash (VS Code's label icon syntax). */
const UNESCAPED_ICON = /(^|[^\\])\$\([A-Za-z0-9-]+(?:~[A-Za-z]+)?\)/;
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Counts per surface, printed at the end (the README's figures). */
const tried: Record<string, number> = {};
const count = (surface: string) => (tried[surface] = (tried[surface] ?? 0) + 1);

describe('plain text for VS Code surfaces, over the hostile-strings corpus', () => {
  test(`the corpus has at least 200 strings (it has ${corpus.length})`, () => {
    assert.ok(corpus.length >= 200);
  });

  test('notification text holds no link VS Code would render, no bidi override or control', () => {
    for (const { kind, text } of corpus) {
      for (const multiline of [false, true]) {
        const shown = notificationText(text, multiline);
        count('notification');
        assert.doesNotMatch(shown, NOTIFICATION_LINK, `${kind}: ${JSON.stringify(text.slice(0, 80))}`);
        assert.doesNotMatch(shown, /\]\(/, kind);
        assert.doesNotMatch(shown, UNSAFE, kind);
        assert.ok(shown.length <= (multiline ? MAX_BLOCK : 2 * MAX_LINE), `${kind}: bounded`);
        if (!multiline) assert.doesNotMatch(shown, /\n/, `${kind}: one line`);
      }
    }
  });

  test('a command link in a title shows its brackets as text: only a zero-width space is added', () => {
    const title = 'Fix [Undo](command:workbench.action.files.newUntitledFile)';
    assert.equal(notificationText(title), 'Fix [Undo]\u200B(command:workbench.action.files.newUntitledFile)');
    assert.equal(notificationText(`Archived "${title}".`).replace(/\u200B/g, ''), `Archived "${title}".`);
  });

  test('quick pick text renders no icon and reads as the agent wrote it', () => {
    for (const { kind, text } of corpus) {
      const shown = quickPickText(text);
      count('quick pick');
      assert.doesNotMatch(shown, UNESCAPED_ICON, `${kind}: ${JSON.stringify(text.slice(0, 80))}`);
      assert.doesNotMatch(shown, UNSAFE, kind);
      // VS Code shows an escaped `\$(x)` as `$(x)`: what is read is the plain line.
      const rendered = shown.replace(/\\(\$\([A-Za-z0-9-]+(?:~[A-Za-z]+)?\))/g, '$1');
      assert.equal(rendered, plainLine(text), kind);
    }
  });

  test('Markdown tooltip text renders as text only: no link, autolink, image, HTML or emphasis', () => {
    for (const { kind, text } of corpus) {
      const escaped = markdownText(text);
      count('markdown tooltip');
      const html = markdown.render(`**Title**: ${escaped}`);
      const tags = [...html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => m[1]);
      assert.deepEqual([...new Set(tags)].filter((t) => !['p', 'br', 'strong'].includes(t)), [], `${kind}: ${JSON.stringify(text.slice(0, 80))}`);
      assert.equal(html.match(/<strong>/g)?.length, 1, `${kind}: only our own bold`);
    }
  });

  test('ordinary text passes unchanged', () => {
    for (const text of ['Refactor the parser', 'Fix bug #12 (regression) in v1.2.3', 'Port the library to ESM', 'Ünïcödé 日本語 🤖']) {
      assert.equal(plainLine(text), text);
      assert.equal(notificationText(text), text);
      assert.equal(quickPickText(text), text);
      assert.equal(plainBlock(text), text);
    }
  });

  test('1 MB is cut to a bounded line without splitting a surrogate pair', () => {
    const long = '🤖'.repeat(600_000);
    const line = plainLine(long);
    assert.ok(line.length <= MAX_LINE);
    assert.ok(line.endsWith('…'));
    assert.doesNotMatch(line, UNSAFE);
  });

  test('figures', () => {
    console.log(`hostile strings tried per surface (unit): ${JSON.stringify(tried)}; escapes: 0`);
  });
});

describe('scriptJson: a translation bundle inside the webview\'s <script type="application/json">', () => {
  test('no text of the corpus ends the script element or opens a comment, and every text parses back unchanged', () => {
    for (const text of [...corpus.map((h) => h.text), '</script><script>alert(1)</script>', '<!--', '</SCRIPT >', 'a\u2028b\u2029c']) {
      const json = scriptJson({ [text]: text });
      assert.doesNotMatch(json, /<\/script|<!--|[<>\u2028\u2029]/i, JSON.stringify(text));
      assert.deepEqual(JSON.parse(json), { [text]: text });
    }
  });
});
