// Resume in Terminal's command line: the entry's `resume` array with `${sessionId}` and `${cwd}`
// replaced in place, and the refusals for ids and folders that must not reach a program.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AGENT_PRESETS } from '../../src/sessions/agentPresets';
import { batchFileProblem, isPlainToken, isResumeTemplate, resumeLine } from '../../src/sessions/resume';

test('a resume array becomes the program and its arguments, each placeholder replaced inside its own argument', () => {
  assert.deepEqual(resumeLine(['claude', '--resume', '${sessionId}'], { sessionId: 'a1b2-c3', cwd: '/w' }), { ok: true, program: 'claude', args: ['--resume', 'a1b2-c3'] });
  assert.deepEqual(resumeLine(['tool', '--dir=${cwd}', 'id:${sessionId}'], { sessionId: 'x', cwd: '/work/my project' }), { ok: true, program: 'tool', args: ['--dir=/work/my project', 'id:x'] });
});

test('nothing but ${sessionId} and ${cwd} is substituted: no environment, no shell syntax', () => {
  const line = resumeLine(['run', '${HOME}', '$(whoami)', '`id`', '${sessionId};rm'], { sessionId: 's', cwd: '/w' });
  assert.deepEqual(line, { ok: true, program: 'run', args: ['${HOME}', '$(whoami)', '`id`', 's;rm'] });
});

test('a session id that is not a plain token is refused', () => {
  for (const id of ['-rf', '--resume', 'a b', 'a;b', '$(x)', '', 'a\nb', 'é', '../x', 'x'.repeat(201), '`id`', '"q"']) {
    assert.equal(isPlainToken(id), false, JSON.stringify(id));
    assert.deepEqual(resumeLine(['claude', '--resume', '${sessionId}'], { sessionId: id, cwd: '/w' }), { ok: false, problem: { kind: 'badSessionId' } });
  }
  for (const id of ['0199a8f2-6d4b-7c3e-9f10-2a3b4c5d6e7f', 'sess_abc', 'a.b:c', 'A']) assert.equal(isPlainToken(id), true, id);
});

test('the session\'s folder must be absolute, with ${cwd} in the template or not: the terminal starts there, and a relative one would be the extension host\'s own directory', () => {
  for (const cwd of ['relative/dir', '.', '', '..', './x']) {
    assert.deepEqual(resumeLine(['x', '${cwd}'], { sessionId: 's', cwd }), { ok: false, problem: { kind: 'badCwd' } }, JSON.stringify(cwd));
    assert.deepEqual(resumeLine(['x', '${sessionId}'], { sessionId: 's', cwd }), { ok: false, problem: { kind: 'badCwd' } }, JSON.stringify(cwd));
  }
  assert.equal(resumeLine(['x', '${sessionId}'], { sessionId: 's', cwd: '/abs/dir' }).ok, true);
});

test('on Windows a .cmd or .bat resume program (run through cmd.exe) gets no ${cwd} holding a character cmd.exe acts on', () => {
  const template = ['claude', '--resume', '${sessionId}', '--cwd', '${cwd}'];
  for (const ch of ['&', '^', '%', '|', '<', '>', '!', '"']) {
    const session = { sessionId: 's', cwd: `C:\\work\\a${ch}b` };
    for (const found of ['C:\\npm\\claude.cmd', 'C:\\npm\\CLAUDE.BAT']) assert.deepEqual(batchFileProblem(found, template, session, 'win32'), { character: ch }, `${found} ${ch}`);
    // An .exe gets its arguments as they are; elsewhere there is no cmd.exe.
    assert.equal(batchFileProblem('C:\\bin\\claude.exe', template, session, 'win32'), undefined);
    assert.equal(batchFileProblem('/usr/bin/claude.cmd', template, { sessionId: 's', cwd: `/w/a${ch}b` }, 'linux'), undefined);
    // Without ${cwd} the folder is only the terminal's cwd, never on cmd.exe's line.
    assert.equal(batchFileProblem('C:\\npm\\claude.cmd', ['claude', '--resume', '${sessionId}'], session, 'win32'), undefined);
  }
  assert.equal(batchFileProblem('C:\\npm\\claude.cmd', template, { sessionId: 's', cwd: 'C:\\work\\my project (1)' }, 'win32'), undefined);
});

test('an entry without a usable resume array has no command', () => {
  for (const template of [undefined, [], [''], ['  '], 'claude --resume ${sessionId}', [1, 2], null]) {
    assert.equal(isResumeTemplate(template), false, JSON.stringify(template));
    assert.deepEqual(resumeLine(template, { sessionId: 's', cwd: '/w' }), { ok: false, problem: { kind: 'noCommand' } });
  }
});

test('Add Agent presets carry each CLI\'s resume by id (from its --help: test/interop/resume.test.ts); Gemini has none', () => {
  const resume = Object.fromEntries(AGENT_PRESETS.map((p) => [p.id, p.entry.resume]));
  assert.deepEqual(resume, {
    claude: ['claude', '--resume', '${sessionId}'],
    codex: ['codex', 'resume', '${sessionId}'],
    gemini: undefined,
    qwen: ['qwen', '--resume', '${sessionId}'],
    opencode: ['opencode', '--session', '${sessionId}'],
    auggie: ['auggie', '--resume', '${sessionId}'],
  });
});
