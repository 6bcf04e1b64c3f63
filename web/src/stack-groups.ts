// Stacks on the dashboard (docs/pull-requests.md#stacks): the members of a stack are one unit —
// tested as one run and landed together — so the queue's list shows them as one group, and the
// graph names a run's stack members as one chain.
import type { EnqueuedPullRequest } from './api/types';

export type StackPlace = NonNullable<EnqueuedPullRequest['stack']>;

/** A lone pull request, or the members of one stack bottom first, in the queue's order. */
export type QueueRow = { kind: 'single'; entry: EnqueuedPullRequest } | { kind: 'stack'; id: string; members: EnqueuedPullRequest[] };

/** Groups each stack's members where its first member stands (the engine keeps them together in line). */
export function groupStacks(entries: readonly EnqueuedPullRequest[]): QueueRow[] {
  const rows: QueueRow[] = [];
  const stacks = new Map<string, EnqueuedPullRequest[]>();
  for (const e of entries) {
    if (!e.stack) {
      rows.push({ kind: 'single', entry: e });
      continue;
    }
    const members = stacks.get(e.stack.id);
    if (members) members.push(e);
    else {
      const created = [e];
      stacks.set(e.stack.id, created);
      rows.push({ kind: 'stack', id: e.stack.id, members: created });
    }
  }
  for (const members of stacks.values()) members.sort((a, b) => a.stack!.position - b.stack!.position);
  return rows;
}

/** `#1 + #2 → #3 → #4`: the pull requests a run tests, each stack's members joined as one chain. */
export function runTitle(testedPrs: readonly number[], stackOf: (pr: number) => StackPlace | undefined): string {
  const parts: string[] = [];
  let chainOf: string | null = null;
  for (const pr of testedPrs) {
    const id = stackOf(pr)?.id ?? null;
    if (id !== null && id === chainOf) parts[parts.length - 1] += ` → #${pr}`;
    else parts.push(`#${pr}`);
    chainOf = id;
  }
  return parts.join(' + ');
}

/** The stacks a run tests whole or in part, by id: how many of their members it holds. */
export function stacksIn(testedPrs: readonly number[], stackOf: (pr: number) => StackPlace | undefined): Map<string, number> {
  const counts = new Map<string, number>();
  for (const pr of testedPrs) {
    const id = stackOf(pr)?.id;
    if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}
