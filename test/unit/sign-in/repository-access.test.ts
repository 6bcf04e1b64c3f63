// Roles per repository for people signed in with GitHub: GitHub's permission mapped as for
// comment commands, asked once per person and repository within the cache's lifetime and again
// after it (a permission taken away stops working), and nothing on repositories GitHub does not
// serve. permissionOf stands in for GitHub's answer; the end-to-end path is in
// test/browser/sign-in-github.test.ts against the GitHub double.
import { expect } from 'chai';
import { RepositoryAccess } from '../../../shared/sign-in/services/repository-access.js';
import type { RepositoryRole } from '../../../shared/platform/accounts/actor.js';
import type { RepoRef } from '../../../shared/platform/repo-ref.js';

const widgets: RepoRef = { host: 'github.com', owner: 'acme', name: 'widgets' };

describe('roles per repository from GitHub permissions', () => {
  it('maps every permission to a role', async () => {
    const expected: [RepositoryRole, string | null][] = [
      ['admin', 'admin'],
      ['maintain', 'admin'],
      ['write', 'write'],
      ['triage', 'read'],
      ['read', 'read'],
      ['none', null],
    ];
    for (const [permission, role] of expected) {
      const access = new RepositoryAccess('github.com', () => Promise.resolve(permission), 60_000);
      expect(await access.roleOn('jane', widgets), permission).to.equal(role);
    }
  });

  it('asks GitHub once within the lifetime, and again after it', async () => {
    let permission: RepositoryRole = 'admin';
    let asked = 0;
    const access = new RepositoryAccess(
      'github.com',
      () => {
        asked++;
        return Promise.resolve(permission);
      },
      200,
    );
    expect(await access.roleOn('jane', widgets)).to.equal('admin');
    permission = 'read';
    expect(await access.roleOn('JANE', { ...widgets, owner: 'Acme' })).to.equal('admin');
    expect(asked).to.equal(1);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await access.roleOn('jane', widgets)).to.equal('read');
    expect(asked).to.equal(2);
  });

  it('grants nothing on a repository of another host, without asking GitHub', async () => {
    const access = new RepositoryAccess('ghe.example.com', () => Promise.reject(new Error('asked')), 60_000);
    expect(await access.roleOn('jane', widgets)).to.equal(null);
  });
});
