// The strings a text was appended from. A text that grows chunk by chunk (`text += chunk`: a
// merged update's, then a message's) is a rope in the engine; writing it out whole (a spill file's
// record) first copies it into one new string, a large allocation for a long message and most of
// the write's time. Written piece by piece instead, the same code units go out with no copy in
// between. The pieces ride on the object whose text they make, under a property no copy of it
// takes (not enumerable, a symbol: spreads, JSON, structured clones and V8's serializer leave
// it), named in the runtime's registry so that every bundle's copy of this module finds them.
// No state of its own; plain code.

interface Pieces {
  /** The text these pieces make, as it was when the last one was appended. */
  text: string;
  pieces: string[];
}

const PIECES = Symbol.for('acp-sessions.textPieces');

type Carrier = { text: string } & { [PIECES]?: Pieces };

function note(target: Carrier, pieces: Pieces): void {
  Object.defineProperty(target, PIECES, { value: pieces, writable: true, configurable: true, enumerable: false });
}

/** Appends `source.text` to `target.text`, noting its pieces (those of `source`, where known). */
export function appendText(target: { text: string }, source: { text: string }): void {
  const before = target.text;
  target.text = before + source.text;
  const added = piecesOf(source);
  let entry = (target as Carrier)[PIECES];
  // The same string as last noted (`===` on one string is a pointer check); anything else set the text since: start over from it.
  if (entry !== undefined && entry.text === before) entry.text = target.text;
  else note(target, (entry = { text: target.text, pieces: [before] }));
  if (added === undefined) entry.pieces.push(source.text);
  else for (const piece of added) entry.pieces.push(piece);
}

/** `to` has the text of `from` (a part made of a block): so are its pieces. */
export function carryPieces(from: { text: string }, to: { text: string }): void {
  const pieces = piecesOf(from);
  if (pieces !== undefined && to.text === from.text) note(to, { text: to.text, pieces: pieces.slice() });
}

/** The pieces whose concatenation is `part.text`, where they are known (else undefined: write the text itself). */
export function piecesOf(part: { text: string }): readonly string[] | undefined {
  const entry = (part as Carrier)[PIECES];
  return entry !== undefined && entry.text === part.text ? entry.pieces : undefined;
}
