// Where a sign-in lands: only a path of the dashboard itself; anything that could leave the site
// or reach the API lands on the home page.
import { expect } from 'chai';
import { safeNextPath } from '../../../shared/sign-in/domain/next-path.js';

describe('the page a sign-in lands on', () => {
  const kept = ['/default/merge-queue', '/default/merge-queue/queue?repo=github.com%2Facme%2Fapp&branch=main', '/sign-in'];
  const refused = [
    null,
    '',
    'default/merge-queue',
    '//evil.example/x',
    '/\\evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    '/default\n/x',
    '/auth/sign-out',
    '/v1/createToken',
    `/${'a'.repeat(2048)}`,
  ];
  for (const next of kept) it(`keeps ${next}`, () => expect(safeNextPath(next)).to.equal(next));
  for (const next of refused) it(`lands home for ${JSON.stringify(next)?.slice(0, 40)}`, () => expect(safeNextPath(next)).to.equal('/'));
});
