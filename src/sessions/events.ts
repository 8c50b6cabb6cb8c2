// A minimal event emitter with the same call shape as vscode.Event, so the UI can subscribe to
// the models without the models importing `vscode`.

export interface Disposable {
  dispose(): void;
}

export type Event<T> = (listener: (e: T) => void, thisArgs?: unknown, disposables?: Disposable[]) => Disposable;

export class Emitter<T> implements Disposable {
  private listeners = new Set<(e: T) => void>();

  readonly event: Event<T> = (listener, thisArgs, disposables) => {
    const bound = thisArgs ? listener.bind(thisArgs) : listener;
    this.listeners.add(bound);
    const subscription = { dispose: () => void this.listeners.delete(bound) };
    disposables?.push(subscription);
    return subscription;
  };

  fire(e: T): void {
    for (const listener of [...this.listeners]) {
      // One failing listener must not keep the others from hearing about the change.
      try {
        listener(e);
      } catch (err) {
        console.error('acp-sessions: an event listener failed', err);
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}
