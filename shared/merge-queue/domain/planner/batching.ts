// Batch formation (merge-queue-behaviour §1.9, Part 2 §2.2; §1.22: `batchingMinSize` is the
// target size and the cap). Pending entries are grouped in line order into batches of up to the
// target size; a smaller batch waits for more entries until its oldest entry has waited
// `batchingMaxWaitTimeMinutes` — unless it cannot grow any more (something else follows it in
// line) or holds an urgent entry. A `noBatch` entry is tested alone in its place. In parallel
// mode a batch only takes entries of one lane: each new member depends on every member before
// it and needs nothing below it that the first member does not. A stack is one unit: a group
// takes all of it or none of it (stacks.ts), whatever the batching settings — a stack larger than
// the target size is a group by itself.
import type { Entry } from '../model.js';
import type { Dependencies } from './dependencies.js';
import type { World } from './world.js';
import { isUrgentPriority } from '../priority.js';

export interface FormedGroup {
  members: Entry[];
  /** When the group may start (epoch ms); null when it may start now. */
  waitUntil: number | null;
}

export interface GroupContext {
  line: readonly Entry[];
  deps: Dependencies;
  /** May join a group now: a pending ordinary entry not grouped yet. */
  eligible: (e: Entry) => boolean;
  /** Already under test (or merged): no longer holds anything up. */
  settled: (id: string) => boolean;
}

export function formGroup(world: World, at: number, ctx: GroupContext): FormedGroup {
  const seed = ctx.line[at]!;
  const q = world.queue;
  const size = Math.max(1, Math.floor(q.batchingMinSize));
  if (!q.batch || seed.noBatch || size <= 1 || (seed.stack && q.mode === 'parallel')) return { members: unitAt(ctx.line, at), waitUntil: null };
  const { members, closed } = q.mode === 'parallel' ? laneBatch(at, size, ctx) : lineBatch(at, size, ctx);
  return { members, waitUntil: closed ? null : dueTime(world, members) };
}

/** The unit starting at `at`: the entry, or the members of its stack that follow it in line. */
function unitAt(line: readonly Entry[], at: number): Entry[] {
  const first = line[at]!;
  if (!first.stack) return [first];
  const unit = [first];
  for (let j = at + 1; line[j]?.stack?.id === first.stack.id; j++) unit.push(line[j]!);
  return unit;
}

function lineBatch(at: number, size: number, ctx: GroupContext): { members: Entry[]; closed: boolean } {
  const members = unitAt(ctx.line, at);
  let j = at + members.length;
  while (members.length < size) {
    const unit = ctx.line[j] ? unitAt(ctx.line, j) : [];
    if (unit.length === 0 || !unit.every((e) => ctx.eligible(e) && !e.noBatch) || members.length + unit.length > size) break;
    members.push(...unit);
    j += unit.length;
  }
  // Full, or something other than a batchable unit follows: waiting cannot make it bigger.
  return { members, closed: members.length >= size || ctx.line[j] !== undefined };
}

function laneBatch(at: number, size: number, ctx: GroupContext): { members: Entry[]; closed: boolean } {
  const members = [ctx.line[at]!];
  const ids = new Set([members[0]!.id]);
  // The batch is tested on its first member's base; a member that needs more below it (another
  // lane joining this one) would couple the lanes, so it waits for its own group.
  const base = new Set(ctx.deps.ancestors(members[0]!.id));
  for (let j = at + 1; j < ctx.line.length && members.length < size; j++) {
    const f = ctx.line[j]!;
    // A stack is a group of its own in parallel mode: its members share one lane by construction.
    if (!ctx.eligible(f) || f.noBatch || f.stack) continue;
    // Every member must be an ancestor: the batch is then one chain, so any run holding a
    // member holds those before it too, and bisecting it by prefixes stays sound.
    if (!members.every((m) => ctx.deps.dependsOn(f.id, m.id))) continue;
    if (!ctx.deps.ancestors(f.id).every((a) => ids.has(a) || base.has(a))) continue;
    members.push(f);
    ids.add(f.id);
  }
  return { members, closed: members.length >= size };
}

function dueTime(world: World, members: Entry[]): number | null {
  const q = world.queue;
  if (!(q.batchingMaxWaitTimeMinutes > 0) || members.some((m) => isUrgentPriority(m.priorityValue))) return null;
  const oldest = Math.min(...members.map((m) => m.stateChangedAt.getTime()));
  const due = oldest + q.batchingMaxWaitTimeMinutes * 60_000;
  return due <= world.now ? null : due;
}
