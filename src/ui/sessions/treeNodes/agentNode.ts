// A configured agent: its connection state in the description and tooltip, its name and
// version from `initialize`, and under it the sections or one item saying why there are none.
import * as vscode from 'vscode';
import type { Agent, AgentState } from '../../../sessions/agentRegistry';
import { describeArchiveMethod } from '../../../acp/archive';
import { presetFor } from '../../../sessions/agentPresets';
import { KeptSectionNode } from './keptNodes';
import { MessageNode } from './messageNode';
import { RetryNode } from './retryNode';
import { SectionNode } from './sectionNode';
import { markdownText, plainLine } from '../../common/plainText';
import { presetText } from '../../common/l10n';
import { ContextWord, contextValue } from './contextValues';
import { TreeNode, type TreeContext } from './treeNode';

export class AgentNode extends TreeNode {
  constructor(
    private readonly ctx: TreeContext,
    private currentAgent: Agent,
  ) {
    super(undefined);
  }

  /** The agent as the registry holds it now (a reconfigured agent is a new one under the same name). */
  get agent(): Agent {
    return this.currentAgent;
  }

  protected override update(fresh: AgentNode): void {
    this.currentAgent = fresh.currentAgent;
  }

  get name(): string {
    return this.agent.name;
  }

  get id(): string {
    return `agent:${this.agent.name}`;
  }

  getTreeItem(): vscode.TreeItem {
    const agent = this.agent;
    const item = new vscode.TreeItem(agent.name, vscode.TreeItemCollapsibleState.Expanded);
    item.id = this.id;
    item.description = plainLine(describe(agent));
    item.tooltip = this.tooltip();
    item.iconPath = icon(agent.state);
    item.contextValue = contextValue(ContextWord.agent, ContextWord[agent.state.kind]);
    item.accessibilityInformation = { label: vscode.l10n.t('{0}, agent, {1}', agent.name, plainLine(describe(agent))) };
    return item;
  }

  override getChildren(): TreeNode[] {
    const agent = this.agent;
    const state = agent.state;
    const blocked = this.ctx.registry.startBlocked;
    if (blocked !== undefined && (state.kind === 'idle' || state.kind === 'failed')) {
      return [
        new MessageNode(this, 'warning', blocked, { key: 'restricted' }),
        new MessageNode(this, 'info', vscode.l10n.t('Manage Workspace Trust…'), {
          key: 'manageTrust',
          command: { command: 'workbench.trust.manage', title: vscode.l10n.t('Manage Workspace Trust') },
        }),
        new MessageNode(this, 'info', vscode.l10n.t('Start Agents Anyway (This Session)'), {
          key: 'startAnyway',
          tooltip: vscode.l10n.t('Starts the configured agents in this untrusted folder until the window is closed.'),
          command: { command: 'acpSessions.startAgentsInRestrictedMode', title: vscode.l10n.t('Start Agents Anyway') },
        }),
      ];
    }
    switch (state.kind) {
      case 'idle':
        this.ctx.start(agent.name);
        return [new MessageNode(this, 'loading', vscode.l10n.t('Starting the agent…'))];
      case 'starting':
        return [new MessageNode(this, 'loading', vscode.l10n.t('Starting the agent…'))];
      case 'failed':
        return [
          new MessageNode(this, 'error', vscode.l10n.t('The agent is not running: {0}', state.reason), {
            tooltip: vscode.l10n.t('{0}\n\nRetry or Refresh to start it again; the log (ACP Sessions: Show Log) has details.', state.reason),
          }),
          new RetryNode(this, { agent: agent.name }, vscode.l10n.t('Restart Agent')),
        ];
      case 'unsupported':
        return [new MessageNode(this, 'warning', vscode.l10n.t('Not supported: {0}', state.reason))];
      case 'needsAuthentication': {
        const methods = state.authMethods.map((m) => m.name).join(', ');
        return [
          new MessageNode(
            this,
            'warning',
            methods
              ? vscode.l10n.t('Sign-in required ({0}): {1}', methods, presetText(presetFor(agent.config, agent.agentInfo?.name))?.login ?? vscode.l10n.t("sign in with the agent's own tool, then retry."))
              : vscode.l10n.t('Sign-in required: {0}', presetText(presetFor(agent.config, agent.agentInfo?.name))?.login ?? vscode.l10n.t("sign in with the agent's own tool, then retry.")),
            { tooltip: state.reason },
          ),
          new RetryNode(this, { agent: agent.name }),
        ];
      }
      case 'connected':
        break;
    }
    if (!agent.capabilities?.list) {
      return [
        new MessageNode(this, 'info', vscode.l10n.t('This agent does not list its sessions.'), {
          tooltip: vscode.l10n.t('It does not advertise sessionCapabilities.list, so there is no history to show.'),
        }),
      ];
    }
    const scope = this.ctx.model.scope;
    if (scope.kind === 'folders' && scope.folders.length === 0) {
      return [
        new MessageNode(this, 'info', vscode.l10n.t('No folder is open. Show the sessions of all folders?'), {
          command: { command: 'acpSessions.scopeAll', title: vscode.l10n.t('Show Sessions of All Folders') },
        }),
      ];
    }
    const sections: TreeNode[] = this.ctx.model.sections(agent.name).map((section) => new SectionNode(this.ctx, this, agent.name, section));
    const offer = this.ctx.keepOffer?.(agent.name);
    if (offer) {
      sections.unshift(
        new MessageNode(this, 'info', vscode.l10n.t('Keep {0} sessions {1} will remove…', offer.count, agent.name), {
          key: 'keepAhead',
          tooltip: vscode.l10n.t('{1} will remove {0} of its sessions soon (see each row). Loading each once keeps a copy here, readable under Kept Here once the agent has removed it.', offer.count, agent.name),
          command: { command: 'acpSessions.keepSessionsAhead', title: vscode.l10n.t('Keep Sessions…'), arguments: [agent.name] },
        }),
      );
    }
    const kept = this.ctx.kept;
    if (kept && (kept.sessions(agent.name).length > 0 || kept.damaged(agent.name).length > 0)) sections.push(new KeptSectionNode(this.ctx, this, agent.name));
    return sections;
  }

  private tooltip(): vscode.MarkdownString {
    const agent = this.agent;
    // Name, version and reasons come from the agent (and its stderr): escaped whole.
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**${markdownText(agent.name)}**\n\n`);
    const line = (name: string, value: string) => md.appendMarkdown(`${name}: ${markdownText(value)}  \n`);
    if (agent.agentInfo) line(vscode.l10n.t('Agent'), `${agent.agentInfo.title ?? agent.agentInfo.name} ${agent.agentInfo.version}`);
    line(vscode.l10n.t('State'), stateText(agent.state));
    if (agent.state.kind === 'failed' || agent.state.kind === 'unsupported' || agent.state.kind === 'needsAuthentication') {
      line(vscode.l10n.t('Reason'), agent.state.reason);
    }
    if (agent.protocolVersion) line(vscode.l10n.t('Protocol'), `ACP v${agent.protocolVersion}`);
    const caps = agent.capabilities;
    if (caps) {
      const names = (['list', 'archive', 'delete', 'loadSession', 'resume', 'close'] as const).filter((c) => caps[c]);
      line(vscode.l10n.t('Capabilities'), names.length ? names.join(', ') : vscode.l10n.t('none'));
      if (caps.archiveMethod) line(vscode.l10n.t('Archive'), describeArchiveMethod(caps.archiveMethod));
    }
    line(vscode.l10n.t('Command'), [agent.config.command, ...(agent.config.args ?? [])].join(' '));
    // OpenCode lists at most 100 sessions of a folder and gives no cursor to the rest.
    const capped = this.ctx.model.allLists(agent.name).filter((l) => l.status === 'loaded' && l.mayHoldMore !== undefined);
    if (capped.length > 0) {
      const folders = capped.map((l) => l.cwd ?? vscode.l10n.t('all folders'));
      line(vscode.l10n.t('Listed'), vscode.l10n.t('it may hold more sessions than it lists: its list of {0} ended on a page of {1} without a cursor to the rest', [...new Set(folders)].join(', '), capped[0].mayHoldMore!));
    }
    const kept = this.ctx.kept;
    if (kept) {
      const { count, bytes } = kept.usage(agent.name);
      const gone = kept.sessions(agent.name).length;
      line(vscode.l10n.t('Kept copies'), count === 0
        ? vscode.l10n.t('none yet (a copy is kept of every session read here)')
        : vscode.l10n.t('{0} sessions, {1} MB on disk; {2} of them the agent no longer has (Kept Here)', count, (Math.round((bytes / 1048576) * 10) / 10).toString(), gone));
    }
    return md;
  }
}

function stateText(state: AgentState): string {
  switch (state.kind) {
    case 'idle':
      return vscode.l10n.t('not started');
    case 'starting':
      return vscode.l10n.t('starting…');
    case 'connected':
      return vscode.l10n.t('connected');
    case 'failed':
      return vscode.l10n.t('failed');
    case 'unsupported':
      return vscode.l10n.t('not supported');
    case 'needsAuthentication':
      return vscode.l10n.t('needs authentication');
  }
}

function describe(agent: Agent): string {
  const state = agent.state;
  const info = agent.agentInfo ? `${agent.agentInfo.title ?? agent.agentInfo.name} ${agent.agentInfo.version}` : undefined;
  switch (state.kind) {
    case 'connected':
      return info ? vscode.l10n.t('{0} · connected', info) : vscode.l10n.t('connected');
    case 'failed':
      return vscode.l10n.t('failed: {0}', state.reason.split('\n')[0]);
    case 'unsupported':
      return vscode.l10n.t('not supported: {0}', state.reason.split('\n')[0]);
    default:
      return stateText(state);
  }
}

function icon(state: AgentState): vscode.ThemeIcon {
  switch (state.kind) {
    case 'idle':
      return new vscode.ThemeIcon('circle-outline');
    case 'starting':
      return new vscode.ThemeIcon('loading~spin');
    case 'connected':
      return new vscode.ThemeIcon('hubot');
    case 'failed':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
    case 'unsupported':
      return new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
    case 'needsAuthentication':
      return new vscode.ThemeIcon('key', new vscode.ThemeColor('problemsWarningIcon.foreground'));
  }
}
