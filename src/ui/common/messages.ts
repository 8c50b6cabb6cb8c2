// Every notification, confirmation and input box of the Sessions view, in one place: agent text
// reaches VS Code as plain text (a title must not become a link), and in the extension's Test
// mode a recorder lets integration tests read and answer them.
import * as vscode from 'vscode';
import { notificationText } from './plainText';

export type Severity = 'info' | 'warning' | 'error';

/** A message the Sessions view showed, as recorded in the extension's Test mode. */
export interface ShownMessage {
  readonly severity: Severity;
  /** The text as shown: agent text in it is plain (see notificationText). */
  readonly text: string;
  readonly detail?: string;
  readonly modal: boolean;
  readonly actions: readonly string[];
  /** The action chosen (a click, or `MessageRecorder.choose`); undefined when dismissed. */
  readonly answered: Promise<string | undefined>;
}

/** How many shown messages the recorder keeps (the oldest go first): far more than the whole integration suite shows, since its tests index `shown`; a bound only against a runaway. */
const MAX_RECORDED = 50_000;

/**
 * What integration tests read and answer instead of clicking: the messages shown, and modal
 * answers given in advance. Only created in the extension's Test mode and only reachable from
 * the test API, so no other extension can answer a confirmation for the user.
 */
export class MessageRecorder {
  readonly shown: ShownMessage[] = [];
  private readonly answerers = new Map<ShownMessage, (action: string | undefined) => void>();
  private readonly queuedModalAnswers: (string | undefined)[] = [];
  private readonly queuedInputAnswers: (string | undefined)[] = [];
  /** The input boxes asked (their prompts), answered from `answerNextInput`. */
  readonly inputs: string[] = [];
  private readonly onDidShowEmitter = new vscode.EventEmitter<ShownMessage>();
  readonly onDidShow = this.onDidShowEmitter.event;

  /** Answers the next modal confirmation with `action` instead of showing it. */
  answerNextModal(action: string | undefined): void {
    this.queuedModalAnswers.push(action);
  }

  /** Answers the next input box (Rename…) with `value` (undefined: cancelled) instead of showing it. */
  answerNextInput(value: string | undefined): void {
    this.queuedInputAnswers.push(value);
  }

  /** @internal the queued answer for the next input box, if any. */
  takeInputAnswer(): { answer: string | undefined } | undefined {
    return this.queuedInputAnswers.length > 0 ? { answer: this.queuedInputAnswers.shift() } : undefined;
  }

  /** Picks an action of a shown notification, as a click on its button would. */
  choose(message: ShownMessage, action: string | undefined): void {
    this.answerers.get(message)?.(action);
  }

  /** @internal the queued answer for the next modal, if any. */
  takeModalAnswer(): { answer: string | undefined } | undefined {
    return this.queuedModalAnswers.length > 0 ? { answer: this.queuedModalAnswers.shift() } : undefined;
  }

  /** @internal records a message and lets `choose` settle it as well as VS Code. */
  record(message: Omit<ShownMessage, 'answered'>, show: () => Thenable<string | undefined>): Promise<string | undefined> {
    let answer!: (action: string | undefined) => void;
    const answered = new Promise<string | undefined>((resolve) => (answer = resolve));
    const shown: ShownMessage = { ...message, answered };
    this.answerers.set(shown, answer);
    this.shown.push(shown);
    if (this.shown.length > MAX_RECORDED) this.answerers.delete(this.shown.shift()!);
    show().then(answer, () => answer(undefined));
    void answered.then(() => this.answerers.delete(shown));
    this.onDidShowEmitter.fire(shown);
    return answered;
  }

  /**
   * Forgets every recorded message (unanswered ones settle as dismissed): a suite that shows
   * hundreds of messages calls it when done, since past MAX_RECORDED the oldest are dropped and
   * `shown.length` no longer counts what was shown since a given point.
   */
  clear(): void {
    for (const answer of this.answerers.values()) answer(undefined);
    this.answerers.clear();
    this.shown.splice(0);
  }

  dispose(): void {
    this.onDidShowEmitter.dispose();
  }
}

/**
 * Every notification and confirmation of the Sessions view goes through here, so agent text in
 * it reaches VS Code as plain text (titles and agent errors must not become links).
 */
export class Messages {
  /** Set in the extension's Test mode only. */
  recorder: MessageRecorder | undefined;

  show(severity: Severity, text: string, ...actions: string[]): Promise<string | undefined> {
    const shownText = notificationText(text);
    const show = () =>
      (severity === 'error'
        ? vscode.window.showErrorMessage
        : severity === 'warning'
          ? vscode.window.showWarningMessage
          : vscode.window.showInformationMessage)(shownText, ...actions);
    if (!this.recorder) return Promise.resolve(show());
    return this.recorder.record({ severity, text: shownText, modal: false, actions }, show);
  }

  /** A modal confirmation; true when the user chose `action`. */
  async confirm(text: string, detail: string, action: string): Promise<boolean> {
    const shownText = notificationText(text);
    const shownDetail = notificationText(detail, true);
    const show = () => vscode.window.showWarningMessage(shownText, { modal: true, detail: shownDetail }, action);
    if (!this.recorder) return (await show()) === action;
    const queued = this.recorder.takeModalAnswer();
    const chosen = await this.recorder.record(
      { severity: 'warning', text: shownText, detail: shownDetail, modal: true, actions: [action] },
      queued ? () => Promise.resolve(queued.answer) : show,
    );
    return chosen === action;
  }

  /** An input box; in Test mode a queued answer stands in for the user's typing. */
  async input(options: vscode.InputBoxOptions): Promise<string | undefined> {
    this.recorder?.inputs.push(options.prompt ?? '');
    const queued = this.recorder?.takeInputAnswer();
    if (queued) return queued.answer;
    return vscode.window.showInputBox(options);
  }

  dispose(): void {
    this.recorder?.dispose();
  }
}
