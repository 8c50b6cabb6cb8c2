// What a `vscode://…/open` link may do (src/sessions/linkPolicy.ts): exactly what a click on a
// listed row in an open folder of a running agent does; anything more asks first; ids and folders
// that are not plain values are refused before anything reaches an agent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isInFolders, isPlainFolder, linkVerdict, type LinkFacts } from '../../src/sessions/linkPolicy';

const listed = { sessionId: 'sess_1', cwd: '/work/app', title: 'Listed' };
const facts = (extra: Partial<LinkFacts> = {}): LinkFacts => ({
  sessionId: 'sess_1',
  cwd: '/work/app',
  listed,
  agentRunning: true,
  trusted: true,
  folders: ['/work/app'],
  platform: 'linux',
  ...extra,
});

test('a link to a session a running agent lists in an open folder opens it, with the list\'s folder, not the link\'s', () => {
  assert.deepEqual(linkVerdict(facts()), { kind: 'open', session: listed });
  assert.deepEqual(linkVerdict(facts({ cwd: '/home/me/Downloads/evil-repo' })), { kind: 'open', session: listed });
  // A folder below an open one is open too.
  const below = { ...listed, cwd: '/work/app/packages/x' };
  assert.deepEqual(linkVerdict(facts({ listed: below })), { kind: 'open', session: below });
});

test('a session no list holds asks first, naming the link\'s folder; so do a folder outside the workspace, a stopped agent and Restricted Mode', () => {
  assert.deepEqual(linkVerdict(facts({ sessionId: 'made-up-id', cwd: '/home/me/Downloads/evil-repo', listed: undefined })), {
    kind: 'ask',
    session: { sessionId: 'made-up-id', cwd: '/home/me/Downloads/evil-repo', title: null },
    doubts: ['notListed', 'outsideWorkspace'],
  });
  assert.deepEqual(linkVerdict(facts({ listed: undefined })).kind === 'ask' && (linkVerdict(facts({ listed: undefined })) as { doubts: string[] }).doubts, ['notListed']);
  const elsewhere = { ...listed, cwd: '/work/application' };
  assert.deepEqual(linkVerdict(facts({ listed: elsewhere })), { kind: 'ask', session: elsewhere, doubts: ['outsideWorkspace'] });
  assert.deepEqual(linkVerdict(facts({ agentRunning: false })), { kind: 'ask', session: listed, doubts: ['agentStopped'] });
  assert.deepEqual(linkVerdict(facts({ trusted: false })), { kind: 'ask', session: listed, doubts: ['untrusted'] });
  assert.deepEqual(linkVerdict(facts({ folders: [] })), { kind: 'ask', session: listed, doubts: ['outsideWorkspace'] });
});

test('a link whose session id is not a plain token is refused, listed or not', () => {
  for (const sessionId of ['-rf', '--dangerously-skip-permissions', 'a b', 'a\nb', '../x', '$(id)', '', 'x'.repeat(201)]) {
    assert.deepEqual(linkVerdict(facts({ sessionId, listed: { ...listed, sessionId } })), { kind: 'refuse', why: 'badSessionId' }, JSON.stringify(sessionId));
  }
});

test('a session no list holds needs a plain absolute folder from the link', () => {
  for (const cwd of ['', '.', 'relative/dir', '/work/app\n/other', '/work/\u202Eppa', '/w/\u0000', '/' + 'x'.repeat(5000)]) {
    assert.deepEqual(linkVerdict(facts({ cwd, listed: undefined })), { kind: 'refuse', why: 'badFolder' }, JSON.stringify(cwd.slice(0, 30)));
    assert.equal(isPlainFolder(cwd, 'linux'), false);
  }
});

test('the workspace test compares whole path segments, resolves dots, and ignores case on Windows only', () => {
  assert.equal(isInFolders('/work/app', ['/work/app'], 'linux'), true);
  assert.equal(isInFolders('/work/app/../app/src', ['/work/app'], 'linux'), true);
  assert.equal(isInFolders('/work/app/../other', ['/work/app'], 'linux'), false);
  assert.equal(isInFolders('/work/apple', ['/work/app'], 'linux'), false);
  assert.equal(isInFolders('/Work/App', ['/work/app'], 'linux'), false);
  assert.equal(isInFolders('C:\\Work\\App\\src', ['c:\\work\\app'], 'win32'), true);
  assert.equal(isInFolders('D:\\work\\app', ['c:\\work\\app'], 'win32'), false);
});
