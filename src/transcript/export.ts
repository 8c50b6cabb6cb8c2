// "Export as Markdown": the host's timeline (not the DOM) written as one Markdown document,
// compaction summaries included. Message bodies (and a plan's own Markdown) are the agent's
// Markdown and stay Markdown; every other field is plain text, escaped so nothing in it is live.
import { codeSpans } from './inlineCode';
import { peekRow, type EntityRows } from './rows';
import { FOR_MODEL_LABEL, describePart, partsText, type Entity, type Part, type SessionState } from './model';

export interface ExportHeader {
  title: string;
  agentName: string;
  sessionId: string;
  cwd: string;
  updatedAt?: string;
  archived?: boolean;
}

const ROLE_HEADINGS = { user_message: 'User', agent_message: 'Agent', thought: 'Thought', session_message: 'Message between sessions' } as const;

/** `entities`: an array, or a timeline's rows (read back from its file one by one). */
export function timelineToMarkdown(header: ExportHeader, entities: EntityRows, state?: SessionState): string {
  let text = '';
  for (const chunk of timelineMarkdownChunks(header, entities, state)) text += chunk;
  return text;
}

/**
 * The same document a piece at a time (an entity each), for a writer that never holds it whole:
 * runs of three or more newlines become two and trailing whitespace goes, as over the whole text.
 */
export function* timelineMarkdownChunks(header: ExportHeader, entities: EntityRows, state?: SessionState): Generator<string> {
  const head: string[] = [];
  head.push(`# ${inline(header.title || header.sessionId)}`, '');
  head.push(`- Agent: ${inline(header.agentName)}`);
  head.push(`- Session: ${code(header.sessionId)}`);
  head.push(`- Folder: ${inline(header.cwd)}`);
  if (header.updatedAt) head.push(`- Updated: ${inline(header.updatedAt)}`);
  if (header.archived) head.push('- Archived');
  if (state?.usage) head.push(`- Context: ${state.usage.used} of ${state.usage.size} tokens`);
  head.push('');
  const normal = new Normalizer();
  yield normal.push(head.join('\n'));
  for (let i = 0; i < entities.length; i++) yield normal.push('\n' + [...entityToMarkdown(peekRow(entities, i)!), ''].join('\n'));
  yield normal.end();
}

/** `text.replace(/\n{3,}/g, '\n\n').trimEnd() + '\n'` over pieces: the trailing whitespace of what came so far waits for what follows. */
class Normalizer {
  private held = '';

  push(piece: string): string {
    const text = this.held + piece;
    // Scanned back by hand: a search for /\s*$/ is quadratic in a long run of spaces inside.
    let end = text.length;
    while (end > 0 && /\s/.test(text[end - 1])) end--;
    this.held = text.slice(end);
    return text.slice(0, end).replace(/\n{3,}/g, '\n\n');
  }

  end(): string {
    return '\n';
  }
}

function entityToMarkdown(entity: Entity): string[] {
  switch (entity.kind) {
    case 'user_message':
    case 'agent_message':
    case 'session_message':
      return [`## ${ROLE_HEADINGS[entity.kind]}`, '', partsMarkdown(entity.parts)];
    case 'thought':
      return [`### ${ROLE_HEADINGS.thought}`, '', quote(partsMarkdown(entity.parts))];
    case 'tool_call': {
      const lines = [`### Tool: ${inlineWithCode(entity.title)}${entity.status ? ` (${inline(entity.status)})` : ''}`, ''];
      for (const location of entity.locations) lines.push(`- ${code(`${location.path}${location.line ? `:${location.line}` : ''}`)}`);
      for (const item of entity.content) {
        if (item.type === 'content') lines.push('', partsMarkdown([item.part]));
        else if (item.type === 'diff') lines.push('', `Diff of ${code(item.path)}:`, '', fence(item.newText, 'diff', item.oldText));
        else if (item.type === 'terminal') lines.push('', `Terminal ${code(item.terminalId)}`);
        else lines.push('', fence(item.json, 'json'));
      }
      return lines;
    }
    case 'plan': {
      const lines = ['### Plan', ''];
      for (const entry of entity.entries) lines.push(`- [${entry.status === 'completed' ? 'x' : ' '}] ${inline(entry.content)}`);
      if (entity.markdown) lines.push(entity.markdown);
      if (entity.file) lines.push(`Plan file: ${inline(entity.file)}`);
      return lines;
    }
    case 'compaction': {
      const lines = [`### Context compaction (${inline(entity.status)})`, ''];
      if (entity.error) lines.push(`Error: ${inline(entity.error)}`, '');
      if (entity.summary.length) lines.push(quote(partsMarkdown(entity.summary)));
      return lines;
    }
    case 'subagent': {
      const lines = [`### Subagent: ${inline(entity.title ?? entity.sessionId)}${entity.state ? ` (${inline(entity.state)})` : ''}`, '', `Session ${code(entity.sessionId)}`];
      if (entity.description) lines.push('', inline(entity.description));
      return lines;
    }
    case 'unknown':
      return [`### Update ${code(entity.sessionUpdate)}`, '', ...(entity.problem ? [inline(entity.problem), ''] : []), fence(entity.json, 'json')];
  }
}

function partsMarkdown(parts: readonly Part[]): string {
  return parts.map((p) => (p.forModel ? forModelMarkdown(p) : p.type === 'text' ? p.text : `_[${describePart(p)}]_`)).join('\n\n');
}

/** Content the agent sent the model only: labelled, and literal (a fence), never read as the message's words. */
function forModelMarkdown(part: Part): string {
  return `_${FOR_MODEL_LABEL}:_\n\n${fence(part.type === 'text' ? part.text : describePart(part), 'text')}`;
}

function quote(text: string): string {
  return text.split('\n').map((l) => (l ? `> ${l}` : '>')).join('\n');
}

/** A fence longer than any backtick run inside, so the text cannot close it. */
function fence(text: string, lang: string, oldText?: string): string {
  const body = oldText !== undefined && lang === 'diff'
    ? [...oldText.split('\n').map((l) => `-${l}`), ...text.split('\n').map((l) => `+${l}`)].join('\n')
    : text;
  const longest = Math.max(2, ...(body.match(/`+/g) ?? []).map((m) => m.length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${body}\n${ticks}`;
}

function oneLine(text: string): string {
  return String(text).replace(/\s*[\r\n\u2028\u2029]\s*/g, ' ');
}

/**
 * A field that is not Markdown (title, folder, tool title, plan entry, ...) as literal text: the
 * characters that start links, images, HTML, entities or emphasis, and those that make autolinks
 * (`://`, a dot before a letter as in `evil.com`, `a@b.c`) are backslash-escaped, so a preview of
 * the file (VS Code's linkifies) shows what the agent sent and nothing in it is live.
 */
function inline(text: string): string {
  return oneLine(text)
    .replace(/[\\`*_[\]<>#~&@]/g, '\\$&')
    .replace(/:(?=\/\/)|\.(?=[A-Za-z])/g, '\\$&');
}

/** A field read for its code spans only (a tool's title): each span as a code span, the rest literal as `inline` writes it. */
function inlineWithCode(text: string): string {
  return codeSpans(oneLine(text)).map((piece) => (piece.code ? code(piece.text) : inline(piece.text))).join('');
}

/** A code span that the text cannot close: a backtick run longer than any inside it. */
function code(text: string): string {
  const line = oneLine(text);
  const ticks = '`'.repeat(Math.max(0, ...(line.match(/`+/g) ?? []).map((m) => m.length)) + 1);
  const pad = line.startsWith('`') || line.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${line}${pad}${ticks}`;
}

export { partsText };
