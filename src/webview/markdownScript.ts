// The entry of dist/webview/markdown.js: the Markdown renderer, which transcript.js loads when its
// first Markdown pass is scheduled (markdownLoader.ts).
import { renderMarkdown } from './markdown';
import { provideMarkdown } from './markdownLoader';

provideMarkdown(renderMarkdown);
