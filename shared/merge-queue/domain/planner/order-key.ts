// The queue order among entries that hold no place in the train: priority value ascending (0 is
// urgent), then admission sequence; the id breaks ties so that a plan is deterministic.
import type { Entry } from '../model.js';

export function compareEntries(a: Entry, b: Entry): number {
  return a.priorityValue - b.priorityValue || a.seq - b.seq || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
