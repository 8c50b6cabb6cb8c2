// Resume in Terminal: an agent entry's `resume` argument array (`["claude", "--resume",
// "${sessionId}"]`) made into the program and arguments a terminal runs directly, never a shell
// line. The session id and folder come from the agent and are untrusted: an id that is not a plain
// token is refused (it could be read as an option, or smuggle a second word), and a `${cwd}` must
// be an absolute path. Plain Node only (no `vscode`).
import { isAbsolute } from 'node:path';

/** What a resume command line is made from. */
export interface ResumeSession {
  sessionId: string;
  cwd: string;
}

export type ResumeLine = { ok: true; program: string; args: string[] } | { ok: false; problem: ResumeProblem };

export type ResumeProblem =
  /** The entry has no usable `resume` array. */
  | { kind: 'noCommand' }
  /** The session id is not a plain token. */
  | { kind: 'badSessionId' }
  /** The session's folder (where the terminal starts, and `${cwd}`) is not an absolute path. */
  | { kind: 'badCwd' };

/**
 * A plain token: letters, digits and `_`, `-`, `.`, `:`, starting with a letter or digit (so never
 * an option), at most 200 characters. UUIDs (Claude, Codex, Qwen) and the reference agent's ids
 * (`sess_…`) are plain tokens.
 */
export function isPlainToken(id: string): boolean {
  return typeof id === 'string' && /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$/.test(id);
}

/** Whether `value` is a usable `resume` entry: a non-empty array of strings with a non-blank program. */
export function isResumeTemplate(value: unknown): value is string[] {
  return Array.isArray(value) && value.length > 0 && value.every((a) => typeof a === 'string') && value[0].trim() !== '';
}

/**
 * The program and arguments that resume `session`, each `${sessionId}` and `${cwd}` replaced in
 * place (an argument stays one argument whatever it holds). Nothing else is substituted.
 */
export function resumeLine(template: unknown, session: ResumeSession): ResumeLine {
  if (!isResumeTemplate(template)) return { ok: false, problem: { kind: 'noCommand' } };
  if (!isPlainToken(session.sessionId)) return { ok: false, problem: { kind: 'badSessionId' } };
  // Always absolute: a relative folder would be taken from the extension host's own working directory.
  if (!(typeof session.cwd === 'string' && isAbsolute(session.cwd))) return { ok: false, problem: { kind: 'badCwd' } };
  const line = template.map((a) => a.replace(/\$\{(sessionId|cwd)\}/g, (_, name: string) => (name === 'sessionId' ? session.sessionId : session.cwd)));
  return { ok: true, program: line[0], args: line.slice(1) };
}

/** What cmd.exe acts on in a batch file's arguments, quotes or not: `&`, `|`, `<`, `>` end or redirect the command, `%` and `!` expand variables, `^` escapes, `"` ends the quoting. */
const BATCH_SPECIAL = /[&|<>%!^"\r\n]/;

/**
 * Whether `found` (the resume program as found on PATH) is a batch file whose line substitutes a
 * value cmd.exe would act on: on Windows an npm `.cmd` shim runs through cmd.exe, which reads its
 * arguments again. The session id is a plain token already; the folder is what can hold them.
 */
export function batchFileProblem(found: string, template: readonly string[], session: ResumeSession, platform: NodeJS.Platform = process.platform): { character: string } | undefined {
  if (platform !== 'win32' || !/\.(cmd|bat)$/i.test(found)) return undefined;
  if (!template.some((a) => a.includes('${cwd}'))) return undefined;
  const character = BATCH_SPECIAL.exec(session.cwd)?.[0];
  return character === undefined ? undefined : { character };
}
