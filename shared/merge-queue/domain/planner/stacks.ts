// Stacks in the planner (domain/stack.ts, docs/pull-requests.md#stacks): the members of a stack
// form one unit. They stand together in line, in stack order; a group takes a stack whole or not
// at all, so it is tested as one run and merged in one merge; and a member whose member below
// failed or left the queue leaves too (`stack_member_removed`): its branch holds that member's
// commits, so testing or merging it would land them.
import type { Entry } from '../model.js';
import { isActive } from './entry-states.js';
import type { World } from './world.js';

/** Reorders a line so that each stack's members follow its first member, in stack order. */
export function keepStacksTogether(line: readonly Entry[]): Entry[] {
  const byStack = new Map<string, Entry[]>();
  for (const e of line) if (e.stack) byStack.set(e.stack.id, [...(byStack.get(e.stack.id) ?? []), e]);
  if (byStack.size === 0) return [...line];
  const out: Entry[] = [];
  const placed = new Set<string>();
  for (const e of line) {
    if (!e.stack) out.push(e);
    else if (!placed.has(e.stack.id)) {
      placed.add(e.stack.id);
      out.push(...byStack.get(e.stack.id)!.sort((a, b) => a.stack!.position - b.stack!.position));
    }
  }
  return out;
}

/**
 * Members whose member below ended without merging (failed, cancelled, or closed at the forge)
 * while the planner was not looking — through the API or the provider poll — leave too.
 */
export function removeOrphanedStackMembers(world: World): void {
  const latestByPr = new Map<number, Entry>();
  for (const e of world.entries.values()) {
    const known = latestByPr.get(e.prNumber);
    if (!known || isActive(e) || (!isActive(known) && e.submittedAt > known.submittedAt)) latestByPr.set(e.prNumber, e);
  }
  for (const e of [...world.entries.values()]) {
    if (!isActive(e) || !e.stack?.belowPr) continue;
    const below = latestByPr.get(e.stack.belowPr);
    if (!below || isActive(below) || below.state === 'merged') continue;
    const failed = below.state === 'failed';
    // World.transition takes the members above `e` out with it.
    world.transition(
      e,
      failed ? 'failed' : 'cancelled',
      'stack_member_removed',
      `PR #${below.prNumber} below it in its stack ${failed ? 'failed' : 'left the queue'}`,
    );
  }
}
