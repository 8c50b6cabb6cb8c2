// The webview's one channel to the host: messages both ways and the state VS Code keeps for a
// reload (`getState` / `setState`). The only caller of `acquireVsCodeApi`, which VS Code lets a
// webview call once; every other module gets the channel, so each can be loaded by a unit test.
import type { HostToWebview, WebviewState, WebviewToHost } from '../transcript/protocol';

/** What VS Code gives the webview (the part we use). */
export interface VsCodeApi {
  postMessage(message: WebviewToHost): void;
  getState(): WebviewState | undefined;
  setState(state: WebviewState): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export class HostChannel {
  private current: WebviewState | undefined;

  constructor(private readonly api: VsCodeApi) {
    this.current = api.getState();
  }

  /** What was saved before this page loaded (a reload, a tab shown again), then what was saved since. */
  get state(): WebviewState | undefined {
    return this.current;
  }

  post(message: WebviewToHost): void {
    this.api.postMessage(message);
  }

  /**
   * Saves `patch` over the state kept for a reload; a patch that changes nothing is not sent (the
   * header comes ten times a second while a replay does, each a message to the workbench).
   */
  saveState(patch: Partial<WebviewState>): void {
    const current = this.current;
    if (current && (Object.keys(patch) as (keyof WebviewState)[]).every((key) => current[key] === patch[key])) return;
    this.current = { ...(current ?? { agentName: '', sessionId: '', cwd: '', title: '' }), ...patch };
    this.api.setState(this.current);
  }

  /** Calls `listener` with each well-formed message from the host (an object with a string `type`). */
  listen(target: Pick<Window, 'addEventListener'>, listener: (message: HostToWebview) => void): void {
    target.addEventListener('message', (event: MessageEvent<HostToWebview>) => {
      const message = event.data;
      if (!message || typeof message !== 'object' || typeof message.type !== 'string') return;
      listener(message);
    });
  }
}

/** The channel of this webview: call once. */
export function connectToHost(): HostChannel {
  return new HostChannel(acquireVsCodeApi());
}
