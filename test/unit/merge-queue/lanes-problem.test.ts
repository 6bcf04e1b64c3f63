// A merge.lanes that cannot be used is recorded once per problem: the same message on a moved
// target keeps its `since`, a new message starts again, a usable (or absent) file clears it.
import { expect } from 'chai';
import { lanesProblemAfter, lanesProblemWarning } from '../../../shared/merge-queue/domain/lanes-problem.js';
import type { LanesProblem } from '../../../shared/merge-queue/domain/model.js';

const T0 = new Date('2026-11-28T10:00:00Z');
const T1 = new Date('2026-11-28T11:00:00Z');
const SHA1 = 'a'.repeat(40);
const SHA2 = 'b'.repeat(40);

describe('lanes problem', () => {
  const found: LanesProblem = { sha: SHA1, message: 'glob "/api/**" starts with /', since: T0 };

  it('starts with the first read that finds one, and ends with a read that finds none', () => {
    expect(lanesProblemAfter(null, { sha: SHA1, message: found.message }, T0)).to.deep.equal(found);
    expect(lanesProblemAfter(found, { sha: SHA2, message: null }, T1)).to.equal(null);
    expect(lanesProblemAfter(null, { sha: SHA2, message: null }, T1)).to.equal(null);
  });

  it('answers the stored problem itself when the same file is read again, so nothing is written', () => {
    expect(lanesProblemAfter(found, { sha: SHA1, message: found.message }, T1)).to.equal(found);
  });

  it('keeps its start when the target moves on with the same problem, and starts again with another one', () => {
    expect(lanesProblemAfter(found, { sha: SHA2, message: found.message }, T1)).to.deep.equal({ ...found, sha: SHA2 });
    expect(lanesProblemAfter(found, { sha: SHA2, message: 'two areas named "api"' }, T1)).to.deep.equal({
      sha: SHA2,
      message: 'two areas named "api"',
      since: T1,
    });
  });

  it('warns with the commit, the parser message and what waits because of it', () => {
    const w = lanesProblemWarning(found);
    expect(w).to.deep.include({ code: 'lanes_config_invalid', contexts: [], testRunIds: [], since: T0 });
    expect(w.message).to.contain(SHA1.slice(0, 12)).and.contain(found.message).and.contain('wait as not ready');
  });
});
