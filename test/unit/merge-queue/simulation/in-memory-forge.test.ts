// What the provider contract does not reach: the in-memory forge over long histories, where its
// reads and merge bases go through the ancestor index rather than a walk of every commit.
import { expect } from 'chai';
import { InMemoryForge } from '../../../../shared/merge-queue/simulation/in-memory-forge.js';

const REPO = { host: 'memory', owner: 'acme', name: 'deep' };
const LINES = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
/** The shared file with some of its lines (1-based) replaced. */
const withLines = (edits: Record<number, string>) => LINES.map((l, i) => edits[i + 1] ?? l).join('\n');

describe('in-memory forge over a long history', () => {
  it('reads files, ancestry and merge bases correctly a thousand commits deep', () => {
    const forge = new InMemoryForge();
    const repo = forge.createRepository(REPO, { 'shared.txt': LINES.join('\n') });
    const early: string[] = [];
    for (let i = 1; i <= 1000; i++) {
      const sha = repo.push('main', { [`n/${i}`]: `${i}`, ...(i === 5 ? { 'shared.txt': withLines({ 2: 'early on main' }) } : {}) });
      if (i <= 10) early.push(sha);
    }
    const forked = repo.openPullRequest({ number: 1, commits: [{ 'shared.txt': withLines({ 2: 'by the pull request' }) }] });
    for (let i = 1001; i <= 1300; i++) repo.push('main', { [`n/${i}`]: `${i}` });
    repo.push('main', { 'shared.txt': withLines({ 2: 'early on main', 19: 'on main' }) });

    expect(repo.fileAt(early[4]!, 'n/5')).to.equal('5');
    expect(repo.fileAt(early[4]!, 'n/6')).to.equal(null);
    expect(repo.fileAt('main', 'n/1234')).to.equal('1234');
    expect(repo.isAncestor(early[0]!, repo.head('main')!)).to.equal(true);
    expect(repo.isAncestor(early[0]!, forked)).to.equal(true);
    expect(repo.isAncestor(forked, repo.head('main')!)).to.equal(false);

    // The merge base is the fork point 300 commits down, where line 2 already read 'early on
    // main': against any older base both sides would have changed line 2, a conflict.
    const built = repo.buildTestBranch({ branch: 'test/1', baseSha: repo.head('main')!, pullRequests: [{ number: 1, headSha: forked, title: 'x' }] });
    expect(built.ok).to.equal(true);
    expect(repo.fileAt('test/1', 'shared.txt')).to.equal(withLines({ 2: 'by the pull request', 19: 'on main' }));
    expect(repo.fileAt('test/1', 'n/1300')).to.equal('1300');
  });

  it('gives the same tree to the same files however they were reached, and another to different ones', () => {
    const forge = new InMemoryForge();
    const repo = forge.createRepository(REPO, { a: '1' });
    repo.createBranch('other', 'main');
    repo.push('main', { b: '2' });
    repo.push('main', { c: '3' });
    repo.push('other', { c: '3', b: 'x' });
    expect(repo.treeOf('main')).to.not.equal(repo.treeOf('other'));
    repo.push('other', { b: '2' });
    expect(repo.treeOf('main')).to.equal(repo.treeOf('other'));
    repo.push('other', { c: null });
    expect(repo.filesAt('other')).to.deep.equal({ a: '1', b: '2' });
    expect(repo.treeOf('other')).to.not.equal(repo.treeOf('main'));
  });
});
