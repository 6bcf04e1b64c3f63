// The pure evaluator of required statuses (setCommitStatus decides runs with it).
import { expect } from 'chai';
import { evaluateRequiredStatuses, type ReceivedStatus } from '../../../../shared/merge-queue/domain/required-statuses.js';
import { at } from '../../../../shared/merge-queue/simulation/builders.js';

const s = (context: string, state: ReceivedStatus['state'], minute: number): ReceivedStatus => ({ context, state, at: at(minute) });

describe('required statuses', () => {
  const cases: { name: string; required: string[]; statuses: ReceivedStatus[]; verdict: string }[] = [
    {
      name: 'every required context succeeded → success',
      required: ['build', 'test'],
      statuses: [s('build', 'success', 1), s('test', 'success', 2)],
      verdict: 'success',
    },
    { name: 'a required context still missing → pending', required: ['build', 'test'], statuses: [s('build', 'success', 1)], verdict: 'pending' },
    { name: 'a required context pending → pending', required: ['build'], statuses: [s('build', 'pending', 1)], verdict: 'pending' },
    {
      name: 'a required failure fails at once, even with others pending',
      required: ['build', 'test'],
      statuses: [s('test', 'failure', 1)],
      verdict: 'failure',
    },
    { name: 'error counts as failure', required: ['build'], statuses: [s('build', 'error', 1)], verdict: 'failure' },
    {
      name: 'only the latest state counts: a re-run that passes wins',
      required: ['build'],
      statuses: [s('build', 'failure', 1), s('build', 'success', 2)],
      verdict: 'success',
    },
    {
      name: 'only the latest state counts: a later failure wins',
      required: ['build'],
      statuses: [s('build', 'success', 1), s('build', 'failure', 2)],
      verdict: 'failure',
    },
    {
      name: 'order received does not matter, time does',
      required: ['build'],
      statuses: [s('build', 'success', 5), s('build', 'failure', 2)],
      verdict: 'success',
    },
    {
      name: 'a status back to pending after a failure → pending',
      required: ['build'],
      statuses: [s('build', 'failure', 1), s('build', 'pending', 2)],
      verdict: 'pending',
    },
    {
      name: 'contexts that are not required are ignored',
      required: ['build'],
      statuses: [s('lint', 'failure', 1), s('build', 'success', 1)],
      verdict: 'success',
    },
    { name: 'no required context never passes', required: [], statuses: [s('build', 'success', 1)], verdict: 'pending' },
  ];
  for (const c of cases) {
    it(c.name, () => expect(evaluateRequiredStatuses(c.required, c.statuses)).to.equal(c.verdict));
  }
});
