// list-failing-tests windows (spec §4.3, §8): start inclusive, end exclusive, end after start,
// at most 7 days long.
import { DAY_MS } from './windows.js';

export const MAX_FAILING_WINDOW_MS = 7 * DAY_MS;

export interface WindowProblem {
  path: string;
  message: string;
}

export function failingWindowProblems(start: Date, end: Date): WindowProblem[] {
  if (end.getTime() <= start.getTime()) return [{ path: '/end_time', message: 'must be after start_time' }];
  if (end.getTime() - start.getTime() > MAX_FAILING_WINDOW_MS) return [{ path: '/end_time', message: 'must be within 7 days of start_time' }];
  return [];
}
