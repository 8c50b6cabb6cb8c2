// The Search view's filters, set in a picker instead of typed into the query: agent, Active or
// Archived, folder, age, and where the text was said. They are the engine's own SearchFilters,
// merged under the query's filter words. Agent names and folders are untrusted text here too.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { WHERE_VALUES, type SearchFilters, type Where } from '../../search/query';
import { plainLine, quickPickText } from '../common/plainText';

const DAY = 86_400_000;

/** Ages offered in the picker; one at a time. */
const AGES: readonly { id: string; newerThanMs?: number; olderThanMs?: number }[] = [
  { id: 'newer1d', newerThanMs: DAY },
  { id: 'newer7d', newerThanMs: 7 * DAY },
  { id: 'newer30d', newerThanMs: 30 * DAY },
  { id: 'older30d', olderThanMs: 30 * DAY },
  { id: 'older365d', olderThanMs: 365 * DAY },
];

type Group = 'agent' | 'section' | 'folder' | 'age' | 'where';
/** Groups where checking one item unchecks the others (the engine takes one value). */
const EXCLUSIVE: ReadonlySet<Group> = new Set(['section', 'folder', 'age']);

export interface FilterItem extends vscode.QuickPickItem {
  group: Group;
  /** The agent's name, the folder's path, `active`/`archived`, an age id, or a Where. */
  value: string;
}

function ageText(id: string): string {
  switch (id) {
    case 'newer1d': return vscode.l10n.t('Updated in the last 24 hours');
    case 'newer7d': return vscode.l10n.t('Updated in the last 7 days');
    case 'newer30d': return vscode.l10n.t('Updated in the last 30 days');
    case 'older30d': return vscode.l10n.t('Not updated for 30 days');
    default: return vscode.l10n.t('Not updated for a year');
  }
}

/** Where text was said, as the picker and the summary name it. */
export function whereFilterText(where: Where): string {
  switch (where) {
    case 'you': return vscode.l10n.t('Said by you');
    case 'agent': return vscode.l10n.t('Said by the agent');
    case 'thoughts': return vscode.l10n.t('Thoughts');
    case 'tools': return vscode.l10n.t('Tool calls and their output');
    case 'compactions': return vscode.l10n.t('Compaction summaries');
  }
}

function ageOf(filters: SearchFilters): string | undefined {
  return AGES.find((a) => a.newerThanMs === filters.newerThanMs && a.olderThanMs === filters.olderThanMs)?.id;
}

/** The picker's items (with separators), and the ones `filters` checks. */
export function filterItems(agents: readonly string[], folders: readonly string[], filters: SearchFilters): { items: (FilterItem | vscode.QuickPickItem)[]; checked: FilterItem[] } {
  const items: (FilterItem | vscode.QuickPickItem)[] = [];
  const checked: FilterItem[] = [];
  const add = (item: FilterItem, on: boolean) => {
    items.push(item);
    if (on) checked.push(item);
  };
  const separator = (label: string) => items.push({ label, kind: vscode.QuickPickItemKind.Separator });
  const lower = (filters.agents ?? []).map((a) => a.toLowerCase());

  separator(vscode.l10n.t('Agent'));
  for (const name of agents) add({ group: 'agent', value: name, label: quickPickText(name) }, lower.includes(name.toLowerCase()));
  separator(vscode.l10n.t('Sessions'));
  add({ group: 'section', value: 'active', label: vscode.l10n.t('Active only') }, filters.archived === false);
  add({ group: 'section', value: 'archived', label: vscode.l10n.t('Archived only') }, filters.archived === true);
  separator(vscode.l10n.t('Folder'));
  const allFolders = filters.folder && !folders.includes(filters.folder) ? [filters.folder, ...folders] : folders;
  for (const folder of allFolders) {
    add({ group: 'folder', value: folder, label: quickPickText(path.basename(folder) || folder), description: quickPickText(folder) }, filters.folder === folder);
  }
  separator(vscode.l10n.t('Age'));
  const age = ageOf(filters);
  for (const a of AGES) add({ group: 'age', value: a.id, label: ageText(a.id) }, age === a.id);
  separator(vscode.l10n.t('Where it was said'));
  for (const where of WHERE_VALUES) add({ group: 'where', value: where, label: whereFilterText(where) }, filters.where?.includes(where) === true);
  return { items, checked };
}

/**
 * The checked items after a change: an item just checked in a one-value group unchecks the
 * others of its group.
 */
export function exclusiveSelection(before: readonly FilterItem[], now: readonly FilterItem[]): FilterItem[] {
  const added = now.filter((i) => !before.includes(i) && EXCLUSIVE.has(i.group));
  if (added.length === 0) return [...now];
  const keep = new Map<Group, FilterItem>();
  for (const item of added) keep.set(item.group, item);
  return now.filter((i) => !keep.has(i.group) || keep.get(i.group) === i);
}

/** The filters the checked items say. */
export function filtersOf(checked: readonly FilterItem[]): SearchFilters {
  const filters: SearchFilters = {};
  for (const item of checked) {
    switch (item.group) {
      case 'agent': (filters.agents ??= []).push(item.value); break;
      case 'section': filters.archived = item.value === 'archived'; break;
      case 'folder': filters.folder = item.value; break;
      case 'age': {
        const age = AGES.find((a) => a.id === item.value);
        if (age?.newerThanMs !== undefined) filters.newerThanMs = age.newerThanMs;
        if (age?.olderThanMs !== undefined) filters.olderThanMs = age.olderThanMs;
        break;
      }
      case 'where': (filters.where ??= []).push(item.value as Where); break;
    }
  }
  return filters;
}

export function hasFilters(filters: SearchFilters): boolean {
  return !!(filters.agents?.length || filters.archived !== undefined || filters.folder || filters.where?.length || filters.newerThanMs !== undefined || filters.olderThanMs !== undefined);
}

/** One line naming the active filters (plain text: agent names and folders are untrusted). */
export function filterSummary(filters: SearchFilters): string {
  const parts: string[] = [];
  if (filters.agents?.length) parts.push(filters.agents.map((a) => plainLine(a, 60)).join(', '));
  if (filters.archived !== undefined) parts.push(filters.archived ? vscode.l10n.t('Archived only') : vscode.l10n.t('Active only'));
  if (filters.folder) parts.push(plainLine(path.basename(filters.folder) || filters.folder, 60));
  const age = ageOf(filters);
  if (age) parts.push(ageText(age));
  else if (filters.newerThanMs !== undefined || filters.olderThanMs !== undefined) parts.push(vscode.l10n.t('Age'));
  if (filters.where?.length) parts.push(filters.where.map(whereFilterText).join(', '));
  return parts.join(' · ');
}
