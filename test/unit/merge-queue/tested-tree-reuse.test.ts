// When an earlier passing run may stand for a new one (domain/tested-tree-reuse.ts).
import { expect } from 'chai';
import { mayReuse, recipeOf } from '../../../shared/merge-queue/domain/tested-tree-reuse.js';

describe('tested-tree reuse', () => {
  const run = { id: 'new', requiredStatuses: ['lint', 'ci/test'] };
  const earlier = { id: 'old', status: 'succeeded' as const, tree: 't'.repeat(40), sha: 's'.repeat(40), requiredStatuses: ['ci/test', 'lint'] };

  it('names the target and the heads in merge order: another order is another recipe', () => {
    expect(recipeOf('base', ['a', 'b'])).to.equal('base:a,b');
    expect(recipeOf('base', ['a', 'b'])).to.not.equal(recipeOf('base', ['b', 'a']));
  });

  it('reuses only a built, passing, other run that required the same statuses (in any order)', () => {
    expect(mayReuse(run, earlier)).to.equal(true);
    expect(mayReuse(run, { ...earlier, status: 'failed' })).to.equal(false);
    expect(mayReuse(run, { ...earlier, tree: null })).to.equal(false);
    expect(mayReuse(run, { ...earlier, sha: null })).to.equal(false);
    expect(mayReuse(run, { ...earlier, id: 'new' })).to.equal(false);
    expect(mayReuse(run, { ...earlier, requiredStatuses: ['ci/test'] })).to.equal(false);
    expect(mayReuse(run, { ...earlier, requiredStatuses: ['ci/test', 'lint', 'e2e'] })).to.equal(false);
  });
});
