// ACP content blocks as the timeline's parts (timeline.ts): each kind of block, content for the
// model only (annotations), and a summary's text blocks joined. Pure, no state.
import type { Part } from './model';

type Json = Record<string, unknown>;

/** Converts one ContentBlock; an unknown or malformed block is kept as an `unknown` part. */
export function toPart(block: unknown): Part {
  const part = blockPart(block);
  if (isForModel(block)) part.forModel = true;
  return part;
}

/** ACP's content annotations: an `audience` that names roles but not "user" is for the model (OpenCode's injected context). */
function isForModel(block: unknown): boolean {
  const audience = isObject(block) && isObject(block.annotations) ? block.annotations.audience : undefined;
  return Array.isArray(audience) && audience.length > 0 && !audience.includes('user');
}

function blockPart(block: unknown): Part {
  if (isObject(block)) {
    switch (block.type) {
      case 'text':
        if (typeof block.text === 'string') return { type: 'text', text: block.text };
        break;
      case 'image':
        if (typeof block.mimeType === 'string') {
          const image: Part = { type: 'image', mimeType: block.mimeType };
          if (typeof block.data === 'string') image.data = block.data;
          if (typeof block.uri === 'string') image.uri = block.uri;
          return image;
        }
        break;
      case 'audio':
        if (typeof block.mimeType === 'string') return { type: 'audio', mimeType: block.mimeType };
        break;
      case 'resource_link':
        if (typeof block.uri === 'string') {
          const link: Part = { type: 'resource_link', uri: block.uri, name: typeof block.name === 'string' ? block.name : block.uri };
          if (typeof block.title === 'string') link.title = block.title;
          return link;
        }
        break;
      case 'resource':
        if (isObject(block.resource) && typeof block.resource.uri === 'string') {
          const resource: Part = { type: 'resource', uri: block.resource.uri };
          if (typeof block.resource.mimeType === 'string') resource.mimeType = block.resource.mimeType;
          if (typeof block.resource.text === 'string') resource.text = block.resource.text;
          return resource;
        }
        break;
    }
  }
  const blockType = isObject(block) && typeof block.type === 'string' ? block.type : 'malformed';
  return { type: 'unknown', blockType, json: safeJson(block) };
}

/** Joins adjacent text parts: a summary's text blocks read as one text. */
export function joinText(parts: Part[]): Part[] {
  const joined: Part[] = [];
  for (const part of parts) {
    const last = joined[joined.length - 1];
    if (part.type === 'text' && last?.type === 'text' && last.forModel === part.forModel) last.text += part.text;
    else joined.push(part.type === 'text' ? { type: 'text', text: part.text, ...(part.forModel ? { forModel: true as const } : {}) } : part);
  }
  return joined;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An update or block as the row that could not show it keeps it: JSON, or its string where JSON cannot hold it. */
export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
