// The menus of package.json against the lists of context-value words: every word a
// `viewItem =~ /…/` or `viewItem == …` clause names (in any menu) is a word of its view's list
// (src/ui/sessions/treeNodes/contextValues.ts for the Sessions tree,
// src/ui/search/contextValues.ts for the Search view), so a menu cannot wait for a word no node
// sets; and every listed word is named by a menu or by the code, so the lists hold no dead word.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ContextWord } from '../../src/ui/sessions/treeNodes/contextValues';
import { SearchContextWord } from '../../src/ui/search/contextValues';

// The tests run bundled from out/test/unit/; the sources are found from the repository root.
const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

const LISTS = {
  'acpSessions.sessions': { file: 'src/ui/sessions/treeNodes/contextValues.ts', name: 'ContextWord', words: new Set<string>(Object.values(ContextWord)) },
  'acpSessions.search': { file: 'src/ui/search/contextValues.ts', name: 'SearchContextWord', words: new Set<string>(Object.values(SearchContextWord)) },
};
type View = keyof typeof LISTS;

interface Clause {
  /** Where it is: the menu and the command or submenu. */
  where: string;
  view: View;
  /** The clause as written (`viewItem =~ /^session:.*:deletable/`). */
  text: string;
  words: string[];
}

/** A `viewItem` clause: `==` or `!=` a value, or `=~` a regular expression. */
const VIEW_ITEM = /viewItem\s*(==|!=|=~)\s*(\/(?:\\.|[^/\\])*\/[a-z]*|[^\s&|)]+)/g;

/** The words a clause's value or regular expression names: its runs of letters, escapes (`\w`, `\.`) left out. */
function wordsOf(value: string): string[] {
  const source = value.startsWith('/') ? value.slice(1, value.lastIndexOf('/')).replace(/\\./g, ' ') : value;
  return source.match(/[A-Za-z][A-Za-z0-9]*/g) ?? [];
}

/** Every `viewItem` clause of every menu of `contributes.menus`, with the view its `when` names. */
function menuClauses(): Clause[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    contributes: { menus: Record<string, { command?: string; submenu?: string; when?: string }[]> };
  };
  const clauses: Clause[] = [];
  for (const [menu, items] of Object.entries(manifest.contributes.menus)) {
    for (const item of items) {
      const when = item.when ?? '';
      const where = `${menu} ${item.command ?? item.submenu}`;
      for (const m of when.matchAll(VIEW_ITEM)) {
        const view = when.match(/\bview\s*==\s*([\w.]+)/)?.[1];
        assert.ok(view !== undefined && view in LISTS, `${where}: "${m[0]}" is not under a view with a list of words (${Object.keys(LISTS).join(', ')})`);
        if (m[1] === '=~') assert.doesNotThrow(() => new RegExp(m[2].slice(1, m[2].lastIndexOf('/'))), `${where}: ${m[0]}`);
        clauses.push({ where, view: view as View, text: m[0], words: wordsOf(m[2]) });
      }
    }
  }
  return clauses;
}

/** The .ts files under `dir`, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });
}

test('every word a menu\'s viewItem clause names is in its view\'s list of context-value words', () => {
  const clauses = menuClauses();
  for (const view of Object.keys(LISTS) as View[]) {
    assert.ok(clauses.some((c) => c.view === view), `no viewItem clause for ${view}: the test reads package.json wrong`);
  }
  const missing = clauses.flatMap((c) =>
    c.words.filter((w) => !LISTS[c.view].words.has(w)).map((w) => `${c.where}: "${w}" in ${c.text} is not a word of ${LISTS[c.view].name} (${LISTS[c.view].file})`),
  );
  assert.deepEqual(missing, []);
});

test('every listed context-value word is named by a menu or by the code', () => {
  const clauses = menuClauses();
  const listFiles = new Set(Object.values(LISTS).map((l) => join(ROOT, l.file)));
  // The code names a word by its entry (`ContextWord.pinned`), or, where a node looks it up by a
  // kind (`ContextWord[agent.state.kind]`), as the literal of that kind.
  const code = sources(join(ROOT, 'src'))
    .filter((f) => !listFiles.has(f))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  const unused: string[] = [];
  for (const [view, list] of Object.entries(LISTS)) {
    for (const word of list.words) {
      const inMenu = clauses.some((c) => c.view === view && c.words.includes(word));
      const inCode = code.includes(`${list.name}.${word}`) || code.includes(`'${word}'`);
      if (!inMenu && !inCode) unused.push(`${list.name}.${word} (${list.file})`);
    }
  }
  assert.deepEqual(unused, [], 'listed words no menu and no code names');
});

test('each listed word is spelt as its entry is named, so a lookup by kind (`ContextWord[state.kind]`) sets the kind', () => {
  for (const [name, list] of [['ContextWord', ContextWord], ['SearchContextWord', SearchContextWord]] as const) {
    for (const [key, word] of Object.entries(list)) assert.equal(word, key, `${name}.${key}`);
  }
});
