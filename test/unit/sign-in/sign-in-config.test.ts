// The sign-in variables: sessions' defaults and limits, the OpenID Connect provider all or
// nothing, an https issuer (plain http only on loopback), and role values without which nobody
// could sign in — each mistake stops the service at start, naming the variable.
import { expect } from 'chai';
import { loadConfig } from '../../../shared/composition/config.js';
import { configRefusal } from '../../helpers/config-refusal.js';

const base = { DATA_DIR: '/tmp/openmq-config-test' };
const oidc = { OIDC_ISSUER_URL: 'https://idp.example.test', OIDC_CLIENT_ID: 'openmq', OIDC_CLIENT_SECRET: 'secret', OIDC_ADMIN_VALUES: 'platform' };

const refusal = (env: Record<string, string>): string => configRefusal({ ...base, ...env });

describe('sign-in configuration', () => {
  it('has sessions of 8 idle hours and 24 hours at most, for the organisation of ORG_SLUG, and no provider by default', () => {
    const { signIn } = loadConfig(base);
    expect(signIn).to.deep.equal({
      orgSlug: 'default',
      sessions: { idleMs: 8 * 3_600_000, maxMs: 24 * 3_600_000 },
      oidc: null,
      github: null,
      permissionCacheMs: 60_000,
      githubActions: { issuer: 'https://token.actions.githubusercontent.com', audience: 'openmq', repositoryHost: 'github.com' },
    });
    expect(loadConfig({ ...base, ORG_SLUG: 'acme' }).signIn.orgSlug).to.equal('acme');
    expect(loadConfig({ ...base, ORG_SLUG: 'acme', SIGN_IN_ORG: 'people' }).signIn.orgSlug).to.equal('people');
  });

  it('reads the provider, its scopes and its role values', () => {
    const { signIn } = loadConfig({ ...base, ...oidc, OIDC_WRITE_VALUES: 'eng, qa', OIDC_READ_VALUES: '*', OIDC_ROLE_CLAIM: 'roles' });
    expect(signIn.oidc).to.deep.equal({
      issuer: 'https://idp.example.test',
      clientId: 'openmq',
      clientSecret: 'secret',
      scopes: 'openid profile email',
      roles: { claim: 'roles', values: { admin: ['platform'], write: ['eng', 'qa'], read: ['*'] } },
      displayName: 'single sign-on',
    });
  });

  it('refuses what would not work, naming the variable', () => {
    expect(refusal({ SESSION_IDLE_MINUTES: '600', SESSION_MAX_HOURS: '8' })).to.contain('SESSION_IDLE_MINUTES: must not exceed SESSION_MAX_HOURS');
    expect(refusal({ SESSION_IDLE_MINUTES: '0' })).to.contain('SESSION_IDLE_MINUTES');
    expect(refusal({ OIDC_ISSUER_URL: 'https://idp.example.test' })).to.contain('set OIDC_ISSUER_URL, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET together');
    expect(refusal({ ...oidc, OIDC_CLIENT_SECRET: '' })).to.contain('none empty');
    expect(refusal({ OIDC_ADMIN_VALUES: 'platform' })).to.contain('OIDC_ADMIN_VALUES: set OIDC_ISSUER_URL');
    expect(refusal({ ...oidc, OIDC_ISSUER_URL: 'http://idp.example.test' })).to.contain('OIDC_ISSUER_URL: must be an https URL');
    expect(refusal({ ...oidc, OIDC_SCOPES: 'profile email' })).to.contain('OIDC_SCOPES: must include openid');
    expect(refusal({ ...oidc, OIDC_ADMIN_VALUES: ' , ' })).to.contain('nobody could sign in');
    expect(refusal({ SIGN_IN_ORG: 'Not A Slug' })).to.contain('SIGN_IN_ORG');
  });

  it('reads sign-in with GitHub, which needs GitHub configured, both client values, and an https web address', () => {
    const github = { GITHUB_TOKEN: 'ghp_queue', GITHUB_SIGN_IN_CLIENT_ID: 'Iv1.abc', GITHUB_SIGN_IN_CLIENT_SECRET: 'secret' };
    expect(loadConfig({ ...base, ...github }).signIn.github).to.deep.equal({
      clientId: 'Iv1.abc',
      clientSecret: 'secret',
      webUrl: 'https://github.com',
      apiUrl: 'https://api.github.com',
    });
    const ghes = { ...github, GITHUB_HOST: 'ghe.example.com', GITHUB_API_URL: 'https://ghe.example.com/api/v3', GITHUB_WEB_URL: 'https://ghe.example.com/' };
    expect(loadConfig({ ...base, ...ghes }).signIn.github).to.deep.include({ webUrl: 'https://ghe.example.com', apiUrl: 'https://ghe.example.com/api/v3' });
    expect(refusal({ GITHUB_SIGN_IN_CLIENT_ID: 'Iv1.abc', GITHUB_SIGN_IN_CLIENT_SECRET: 'secret' })).to.contain('configure GitHub too');
    expect(refusal({ ...github, GITHUB_SIGN_IN_CLIENT_SECRET: '' })).to.contain('GITHUB_SIGN_IN_CLIENT_SECRET together, neither empty');
    expect(refusal({ GITHUB_TOKEN: 'ghp_queue', GITHUB_SIGN_IN_CLIENT_ID: 'Iv1.abc' })).to.contain(
      'set GITHUB_SIGN_IN_CLIENT_ID and GITHUB_SIGN_IN_CLIENT_SECRET together',
    );
    expect(refusal({ ...github, GITHUB_WEB_URL: 'http://ghe.example.com' })).to.contain('GITHUB_WEB_URL: must be an https URL');
    expect(refusal({ GITHUB_TOKEN: 'ghp_queue', GITHUB_WEB_URL: 'https://ghe.example.com' })).to.contain('GITHUB_WEB_URL: set GITHUB_SIGN_IN_CLIENT_ID');
  });

  it('accepts plain http for an issuer on this machine only', () => {
    for (const issuer of ['http://127.0.0.1:8080', 'http://localhost:9000/realms/dev', 'http://[::1]:8080']) {
      expect(loadConfig({ ...base, ...oidc, OIDC_ISSUER_URL: issuer }).signIn.oidc?.issuer).to.equal(issuer);
    }
  });

  it("takes the GitHub Actions issuer (https, or http on this machine), its audience and the repositories' host", () => {
    const { githubActions } = loadConfig({
      ...base,
      GITHUB_ACTIONS_OIDC_ISSUER: 'https://ghe.example.com/_services/token/',
      GITHUB_ACTIONS_OIDC_AUDIENCE: 'mq',
      GITHUB_HOST: 'GHE.example.com',
    }).signIn;
    expect(githubActions).to.deep.equal({ issuer: 'https://ghe.example.com/_services/token', audience: 'mq', repositoryHost: 'ghe.example.com' });
    expect(refusal({ GITHUB_ACTIONS_OIDC_ISSUER: 'http://issuer.example.com' })).to.contain('GITHUB_ACTIONS_OIDC_ISSUER: must be an https URL');
    expect(refusal({ GITHUB_ACTIONS_OIDC_AUDIENCE: ' ' })).to.contain('GITHUB_ACTIONS_OIDC_AUDIENCE: must not be empty');
    expect(loadConfig({ ...base, GITHUB_ACTIONS_OIDC_ISSUER: 'http://127.0.0.1:7000' }).signIn.githubActions.issuer).to.equal('http://127.0.0.1:7000');
  });
});
