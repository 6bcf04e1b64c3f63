// Git gets none of the service's secrets (issue 22, L9): only the variables it needs are inherited.
import { expect } from 'chai';
import { gitEnvironment } from '../../../shared/providers/local/git-runner.js';

describe('the environment git runs in', () => {
  const SECRETS = {
    GITHUB_APP_PRIVATE_KEY: '-----BEGIN KEY-----',
    GITHUB_TOKEN: 'ghp_x',
    GITHUB_WEBHOOK_SECRET: 'w',
    API_TOKEN: 'omq_x',
    MONGO_URL: 'mongodb://u:p@db',
    GIT_DIR: '/elsewhere',
  };
  const saved: Record<string, string | undefined> = {};
  before(() => {
    for (const [key, value] of Object.entries(SECRETS)) {
      saved[key] = process.env[key];
      process.env[key] = value;
    }
  });
  after(() => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('inherits PATH and HOME but no secret of the service and no GIT_* variable', () => {
    const env = gitEnvironment();
    expect(env.PATH).to.equal(process.env.PATH);
    expect(env.HOME).to.equal(process.env.HOME);
    for (const key of Object.keys(SECRETS)) expect(env, key).not.to.have.property(key);
    expect(env).to.include({ LC_ALL: 'C', GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' });
    expect(gitEnvironment({}, '/repo.git').GIT_DIR).to.equal('/repo.git');
  });
});
