// A pinned session the agent no longer lists: shown as gone in its agent's Active section (not
// silently dropped), with Unpin. What it shows is what the pin remembered.
import * as vscode from 'vscode';
import { sessionLabel } from '../../../sessions/format';
import type { Pin } from '../../../sessions/pins';
import { markdownText, plainLine } from '../../common/plainText';
import { ContextWord, contextValue } from './contextValues';
import { TreeNode } from './treeNode';

export class GonePinNode extends TreeNode {
  constructor(
    parent: TreeNode,
    readonly pin: Pin,
  ) {
    super(parent);
  }

  get agent(): string {
    return this.pin.agent;
  }

  get id(): string {
    return `gonePin:${JSON.stringify([this.pin.agent, this.pin.sessionId])}`;
  }

  getTreeItem(): vscode.TreeItem {
    const label = plainLine(sessionLabel({ sessionId: this.pin.sessionId, title: this.pin.title }));
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.description = vscode.l10n.t('gone');
    item.iconPath = new vscode.ThemeIcon('pinned-dirty', new vscode.ThemeColor('disabledForeground'));
    item.contextValue = contextValue(ContextWord.pin, ContextWord.gone);
    const tooltip = new vscode.MarkdownString();
    tooltip.appendMarkdown(`**${markdownText(label)}**\n\n`);
    tooltip.appendMarkdown(`${markdownText(vscode.l10n.t('Pinned, but agent "{0}" no longer lists this session: it was deleted or expired outside this window. Unpin to remove it from here.', this.pin.agent))}\n\n`);
    tooltip.appendMarkdown(`${vscode.l10n.t('Session ID')}: ${markdownText(this.pin.sessionId)}  \n${vscode.l10n.t('Folder')}: ${markdownText(this.pin.cwd)}`);
    item.tooltip = tooltip;
    item.accessibilityInformation = { label: vscode.l10n.t('{0}, pinned session, gone: the agent no longer lists it', label) };
    return item;
  }
}
