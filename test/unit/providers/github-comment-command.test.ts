// The `/trunk` command of a pull request comment (commandsEnabled).
import { expect } from 'chai';
import { codeSpan, parseCommentCommand } from '../../../shared/github/domain/comment-command.js';

describe('GitHub comment commands: parsing', () => {
  const table: [string, unknown][] = [
    ['/trunk merge', { kind: 'merge', priority: undefined, text: '/trunk merge' }],
    ['LGTM, thanks!\n\n  /trunk merge  \n', { kind: 'merge', priority: undefined, text: '/trunk merge' }],
    ['/trunk merge --priority=urgent', { kind: 'merge', priority: 'urgent', text: '/trunk merge --priority=urgent' }],
    ['/trunk merge --priority high', { kind: 'merge', priority: 'high', text: '/trunk merge --priority high' }],
    ['/trunk merge --priority=0', { kind: 'merge', priority: 0, text: '/trunk merge --priority=0' }],
    ['/trunk cancel\r\n', { kind: 'cancel', text: '/trunk cancel' }],
    ['/trunk cancel now', { kind: 'unknown', text: '/trunk cancel now', problem: '`/trunk cancel` takes no options' }],
    ['/trunk', { kind: 'unknown', text: '/trunk', problem: 'a command is missing after `/trunk`' }],
    ['/trunk frobnicate', { kind: 'unknown', text: '/trunk frobnicate', problem: '`frobnicate` is not a command' }],
    ['/trunk merge --force', { kind: 'unknown', text: '/trunk merge --force', problem: '`--force` is not an option of `/trunk merge`' }],
    ['/trunk merge --priority', { kind: 'unknown', text: '/trunk merge --priority', problem: '`--priority` takes one value' }],
    [
      '/trunk merge --priority=low --priority=high',
      { kind: 'unknown', text: '/trunk merge --priority=low --priority=high', problem: '`--priority` takes one value' },
    ],
  ];
  for (const [body, expected] of table) {
    it(`${JSON.stringify(body)}`, () => {
      expect(parseCommentCommand(body)).to.deep.equal(expected);
    });
  }

  it('the first command line counts', () => {
    expect(parseCommentCommand('/trunk cancel\n/trunk merge')).to.deep.include({ kind: 'cancel' });
  });

  it('text that only mentions a command is not one: mid-line, quoted, in a code block, another prefix', () => {
    for (const body of [
      'please run /trunk merge when ready',
      '> /trunk merge',
      'How to:\n```\n/trunk merge\n```\ndone',
      '~~~sh\n/trunk cancel\n~~~',
      '/trunkmerge',
      '/merge',
      '',
    ]) {
      expect(parseCommentCommand(body), body).to.equal(null);
    }
  });

  it('a long command line is quoted shortened in replies', () => {
    const command = parseCommentCommand(`/trunk ${'x'.repeat(500)}`);
    expect(command?.kind).to.equal('unknown');
    expect(command?.text.length).to.be.at.most(201);
  });

  it('quotes text back in a code span that no backtick inside it can close (no mention or link escapes it)', () => {
    expect(codeSpan('/trunk merge')).to.equal('`/trunk merge`');
    expect(codeSpan('a`b')).to.equal('``a`b``');
    expect(codeSpan('x``` @acme/team [click](https://evil.example) ```')).to.equal('```` x``` @acme/team [click](https://evil.example) ``` ````');
    expect(codeSpan('`edge`')).to.equal('`` `edge` ``');
    expect(codeSpan('two\nlines')).to.equal('`two lines`');
    const hostile = parseCommentCommand('/trunk x` @acme/everyone [win](https://evil.example) `');
    expect(hostile).to.deep.include({ kind: 'unknown', problem: '`` x` `` is not a command' });
    // Every backtick run inside is shorter than the fence around it.
    const quoted = codeSpan(hostile!.text);
    const fence = /^`+/.exec(quoted)![0];
    for (const run of quoted.slice(fence.length, -fence.length).match(/`+/g) ?? []) expect(run.length).to.be.below(fence.length);
  });
});
