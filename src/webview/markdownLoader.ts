// markdown-it, its entity table and linkify are two thirds of the webview's code, and the first
// screen needs none of them: rows show their text plain until the Markdown pass (markdownPass.ts)
// renders the rows on screen once the stream is quiet. So they are a second script,
// `dist/webview/markdown.js` (markdownScript.ts), loaded next to this one (same folder, same
// CSP nonce) when the first pass is scheduled, and evaluated while the reader looks at plain rows
// instead of before the first one shows.

export type RenderMarkdown = (text: string) => string;

/** Where markdown.js leaves its renderer for this script to take. */
const GLOBAL = '__acpSessionsRenderMarkdown';

/** Called by markdown.js as it loads. */
export function provideMarkdown(render: RenderMarkdown): void {
  (globalThis as Record<string, unknown>)[GLOBAL] = render;
}

export interface MarkdownScript {
  /** The URL of markdown.js. */
  src: string;
  /** The nonce the page's Content Security Policy allows scripts by. */
  nonce: string;
}

/** markdown.js's URL and nonce, from the script element that is running (read while it evaluates). */
export function markdownScriptBeside(script: HTMLOrSVGScriptElement | null): MarkdownScript | undefined {
  if (!(script instanceof HTMLScriptElement) || !script.src) return undefined;
  return { src: new URL('markdown.js', script.src).href, nonce: script.nonce ?? '' };
}

/**
 * Loads markdown.js once, on the first `load()`. `renderer` is undefined until it has run;
 * `load()` resolves false if it cannot (the rows then stay plain text, and the console says why).
 */
export class MarkdownLoader {
  private loading: Promise<boolean> | undefined;
  private render: RenderMarkdown | undefined;

  constructor(private readonly script: MarkdownScript | undefined, private readonly doc: Document = document) {}

  get renderer(): RenderMarkdown | undefined {
    return this.render;
  }

  load(): Promise<boolean> {
    this.loading ??= new Promise<boolean>((resolve) => {
      const done = (): void => {
        const render = (globalThis as Record<string, unknown>)[GLOBAL];
        if (typeof render === 'function') {
          this.render = render as RenderMarkdown;
          resolve(true);
        } else {
          console.error(`ACP Sessions: ${this.script?.src ?? 'markdown.js'} did not provide the Markdown renderer; text stays plain.`);
          resolve(false);
        }
      };
      if (!this.script) return done();
      const element = this.doc.createElement('script');
      element.nonce = this.script.nonce;
      element.src = this.script.src;
      element.addEventListener('load', done);
      element.addEventListener('error', () => {
        console.error(`ACP Sessions: could not load ${this.script!.src}; text stays plain.`);
        resolve(false);
      });
      this.doc.head.append(element);
    });
    return this.loading;
  }
}
