import { expect } from 'chai';
import { normalizeOwnedPath, ownersOf, parseCodeowners } from '../../../shared/flaky-tests/domain/codeowners.js';

const GITHUB = `
# Comments and blank lines are skipped
*                       @global-owner1 @global-owner2
*.js                    @js-owner   # inline comment
**/logs                 @logs-owner
/build/logs/            @doctocat
docs/*                  docs@example.com
apps/                   @octocat
/scripts/               @doctocat @octocat
/apps/github
path\\ with\\ spaces/   @space-owner
src/**/fixtures/*.json  @fixture-owner
`;

describe('flaky/codeowners — GitHub syntax', () => {
  const co = parseCodeowners(GITHUB);

  it('detects the GitHub dialect and reads every rule', () => {
    expect(co.syntax).to.equal('github');
    expect(co.rules.map((r) => r.pattern)).to.deep.equal([
      '*',
      '*.js',
      '**/logs',
      '/build/logs/',
      'docs/*',
      'apps/',
      '/scripts/',
      '/apps/github',
      'path with spaces/',
      'src/**/fixtures/*.json',
    ]);
    expect(co.problems).to.deep.equal([]);
  });

  it('lets the last matching rule win', () => {
    expect(ownersOf(co, 'README.md')).to.deep.equal(['@global-owner1', '@global-owner2']);
    expect(ownersOf(co, 'src/index.js')).to.deep.equal(['@js-owner']);
    expect(ownersOf(co, 'scripts/deploy.js')).to.deep.equal(['@doctocat', '@octocat']);
  });

  it('matches trailing-slash directories recursively and anchors leading slashes', () => {
    expect(ownersOf(co, 'build/logs/2024/x.txt')).to.deep.equal(['@doctocat']);
    expect(ownersOf(co, 'other/build/logs/x.txt')).to.deep.equal(['@logs-owner']);
    expect(ownersOf(co, 'apps/web/main.ts')).to.deep.equal(['@octocat']);
    expect(ownersOf(co, 'services/apps/x.ts')).to.deep.equal(['@octocat']);
  });

  it('matches dir/* direct children only', () => {
    expect(ownersOf(co, 'docs/getting-started.md')).to.deep.equal(['docs@example.com']);
    expect(ownersOf(co, 'docs/build-app/troubleshooting.md')).to.deep.equal(['@global-owner1', '@global-owner2']);
  });

  it('un-owns paths matched by a rule without owners', () => {
    expect(ownersOf(co, 'apps/github/x.ts')).to.deep.equal([]);
  });

  it('handles escaped spaces and ** in the middle', () => {
    expect(ownersOf(co, 'a/path with spaces/b.txt')).to.deep.equal(['@space-owner']);
    expect(ownersOf(co, 'src/fixtures/a.json')).to.deep.equal(['@fixture-owner']);
    expect(ownersOf(co, 'src/a/b/fixtures/a.json')).to.deep.equal(['@fixture-owner']);
    expect(ownersOf(co, 'src/a/b/fixtures/deeper/a.json')).to.deep.equal(['@global-owner1', '@global-owner2']);
  });

  it('matches case-insensitively by default like the hosted CLI, or case-sensitively on request', () => {
    expect(ownersOf(co, 'BUILD/LOGS/x')).to.deep.equal(['@doctocat']);
    const strict = parseCodeowners(GITHUB, { caseSensitive: true });
    expect(ownersOf(strict, 'BUILD/LOGS/x')).to.deep.equal(['@global-owner1', '@global-owner2']);
  });

  it('normalises test file paths (./, leading /, backslashes)', () => {
    expect(normalizeOwnedPath('./build\\logs\\a.txt')).to.equal('build/logs/a.txt');
    expect(ownersOf(co, '/build/logs/a')).to.deep.equal(['@doctocat']);
    expect(ownersOf(co, '')).to.deep.equal([]);
  });

  it('treats a bare name as a file or a directory prefix, at any depth', () => {
    const c = parseCodeowners('lib @lib\n/tools/ci @ci\n');
    expect(ownersOf(c, 'lib')).to.deep.equal(['@lib']);
    expect(ownersOf(c, 'pkg/lib/a.rb')).to.deep.equal(['@lib']);
    expect(ownersOf(c, 'library/a.rb')).to.deep.equal([]);
    expect(ownersOf(c, 'tools/ci/run.sh')).to.deep.equal(['@ci']);
    expect(ownersOf(c, 'x/tools/ci/run.sh')).to.deep.equal([]);
  });

  it('reports invalid owners without failing', () => {
    const c = parseCodeowners('*.go @go not-an-owner\n');
    expect(ownersOf(c, 'a.go')).to.deep.equal(['@go']);
    expect(c.problems).to.have.length(1);
  });
});

// Shaped after GitLab's own sectional fixture (sections, optional, approvals, default owners).
const GITLAB = `
# Entries before any section belong to the default section
*                  @default-codeowner
*.rb               @ruby-owner
\\#file_with_pound.rb @owner-file-with-pound
/docs/             @all-docs
/config/           @config-owner
path\\ with\\ spaces/ @space-owner

[Documentation]
ee/docs/    @gl-docs
docs/       @gl-docs

[Database] @gl-database
README.md
model/db/

^[Optional][0] @opt-owner
*.md

[DefaultOwners] @config-owner @gl-docs
README.md
model/db/ @overridden

[documentation]
README.md @readme-docs
`;

describe('flaky/codeowners — GitLab syntax', () => {
  const co = parseCodeowners(GITLAB);

  it('detects sections, optional flags, approvals and default owners', () => {
    expect(co.syntax).to.equal('gitlab');
    expect(co.sections.map((s) => [s.name, s.optional, s.defaultOwners])).to.deep.equal([
      ['codeowners', false, []],
      ['Documentation', false, []],
      ['Database', false, ['@gl-database']],
      ['Optional', true, ['@opt-owner']],
      ['DefaultOwners', false, ['@config-owner', '@gl-docs']],
    ]);
  });

  it('merges repeated section headers case-insensitively', () => {
    const readmeRule = co.rules.find((r) => r.pattern === 'README.md' && r.section === 'Documentation');
    expect(readmeRule?.owners).to.deep.equal(['@readme-docs']);
  });

  it('unions the owners of every matching section, last match per section', () => {
    expect(ownersOf(co, 'README.md')).to.deep.equal(['@default-codeowner', '@readme-docs', '@gl-database', '@opt-owner', '@config-owner', '@gl-docs']);
    expect(ownersOf(co, 'app/models/user.rb')).to.deep.equal(['@ruby-owner']);
    expect(ownersOf(co, 'docs/guide/intro.md')).to.deep.equal(['@all-docs', '@gl-docs', '@opt-owner']);
  });

  it('uses section default owners for entries without owners, entry owners otherwise', () => {
    expect(ownersOf(co, 'app/model/db/schema.sql')).to.deep.equal(['@default-codeowner', '@gl-database', '@overridden']);
  });

  it('handles escaped # and escaped spaces', () => {
    expect(ownersOf(co, 'lib/#file_with_pound.rb')).to.deep.equal(['@owner-file-with-pound']);
    expect(ownersOf(co, 'x/path with spaces/y')).to.deep.equal(['@space-owner']);
  });

  it('is case-sensitive like GitLab and needs a trailing slash for directories', () => {
    expect(ownersOf(co, 'CONFIG/a.yml')).to.deep.equal(['@default-codeowner']);
    expect(ownersOf(co, 'config/a.yml')).to.deep.equal(['@config-owner']);
    const c = parseCodeowners('[S]\n/tools @tools\n');
    expect(ownersOf(c, 'tools')).to.deep.equal(['@tools']);
    expect(ownersOf(c, 'tools/run.sh')).to.deep.equal([]);
  });

  it('reports malformed headers and owner-less entries', () => {
    const c = parseCodeowners('[Broken\n[]\n[S]\nfoo\n', { syntax: 'gitlab' });
    expect(c.problems.map((p) => p.line)).to.deep.equal([1, 2, 4]);
  });
});
