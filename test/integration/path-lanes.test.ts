// Lanes from paths over real HTTP and real git (docs/lanes.md): a parallel queue whose repository
// maps path globs to lanes in .trunk/trunk.yaml needs no impacted targets uploaded; pull requests
// in different lanes are tested apart, one that changes a barrier path or a file no lane covers is
// tested on top of everything ahead, and uploaded targets still win.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../scripts/lib/test-service.js';
import { makeQueue, SERVICE_OPTIONS, type PrQueue } from './pull-requests-support.js';
import { planExclusively } from '../helpers/planning.js';
import { pushToBranch } from '../../scripts/lib/git-fixtures.js';

const TRUNK_YAML = [
  'version: 0.1',
  'merge:',
  '  lanes:',
  '    areas:',
  '      - {name: api, paths: ["services/api/**"]}',
  '      - {name: web, paths: ["web/**"]}',
  '    barriers: ["package-lock.json", ".github/**"]',
  '',
].join('\n');

describe('lanes from paths', function () {
  this.timeout(60_000);
  let svc: TestService;
  let q: PrQueue;

  before(async () => {
    svc = await startTestService(SERVICE_OPTIONS);
  });
  after(async () => {
    await svc.close();
  });
  beforeEach(async () => {
    q = await makeQueue(svc, { mode: 'parallel', concurrency: 4, files: { 'README.md': '# widgets\n', '.trunk/trunk.yaml': TRUNK_YAML } });
  });

  const changing = (n: number, file: string) => q.pr(n, { commits: [{ message: `Change ${n}`, files: { [file]: `${n}\n` } }] });
  const runOf = async (n: number) => {
    const run = await q.runOf(n);
    const ids = async (entryIds: string[]) => (await svc.ctx.mergeQueue.store.entries.findByIds(entryIds)).map((e) => e.prNumber).sort();
    return { tested: await ids(run.entryIds), base: await ids(run.baseEntryIds) };
  };

  it('tests pull requests of different lanes apart, without any upload; a barrier or an unmapped file goes on top of everything ahead', async () => {
    await changing(1, 'services/api/handler.go');
    await changing(2, 'web/app.tsx');
    await changing(3, 'package-lock.json');
    await changing(4, 'docs/guide.md');
    for (const n of [1, 2]) await q.submitOk(n);
    await q.waitState(1, 'testing');
    await q.waitState(2, 'testing');
    expect((await q.get(1)).readiness).to.deep.include({ requiresImpactedTargets: true, hasImpactedTargets: true });
    expect(await runOf(1)).to.deep.equal({ tested: [1], base: [] });
    expect(await runOf(2), 'another lane: not on top of #1').to.deep.equal({ tested: [2], base: [] });
    await q.submitOk(3);
    await q.waitState(3, 'testing');
    expect(await runOf(3), 'a barrier path: on top of both').to.deep.equal({ tested: [3], base: [1, 2] });
    await q.submitOk(4);
    await q.waitState(4, 'testing');
    expect(await runOf(4), 'a file no lane covers: on top of everything ahead').to.deep.equal({ tested: [4], base: [1, 2, 3] });
  });

  it('holds a lane at its cap: a second run of the capped lane waits while other lanes go on', async () => {
    q = await makeQueue(svc, {
      mode: 'parallel',
      concurrency: 4,
      files: {
        'README.md': '# widgets\n',
        '.trunk/trunk.yaml': TRUNK_YAML.replace('paths: ["services/api/**"]}', 'paths: ["services/api/**"], maxConcurrency: 1}'),
      },
    });
    await changing(1, 'services/api/a.go');
    await changing(2, 'services/api/b.go');
    await changing(3, 'web/app.tsx');
    for (const n of [1, 2, 3]) await q.submitOk(n);
    await q.waitState(1, 'testing');
    await q.waitState(3, 'testing');
    await planExclusively(svc, q.queueId);
    expect((await q.get(2)).state, 'the api lane has its one run').to.equal('pending');
    await q.ci(1, 'success');
    await q.waitState(1, 'merged');
    await q.waitState(2, 'testing');
  });

  it('warns while merge.lanes at the target head cannot be used, and stops once a commit fixes it', async () => {
    q = await makeQueue(svc, {
      mode: 'parallel',
      concurrency: 4,
      files: { 'README.md': '# widgets\n', '.trunk/trunk.yaml': TRUNK_YAML.replace('"services/api/**"', '"/services/api/**"') },
    });
    const warnings = async () => {
      const res = await svc.post('/getQueue', q.ref);
      expect(res.status).to.equal(200);
      return (res.body as { warnings: { code: string; message: string }[] }).warnings.filter((w) => w.code === 'lanes_config_invalid');
    };
    expect(await warnings(), 'no pass has read the file yet').to.deep.equal([]);
    await changing(1, 'web/app.tsx');
    expect((await q.submit(1)).status).to.equal(200);
    await planExclusively(svc, q.queueId);
    const [warning, ...more] = await warnings();
    expect(more).to.deep.equal([]);
    expect(warning?.message).to.contain('/areas/0/paths/0 must be relative').and.contain(q.fx.initialSha.slice(0, 12));
    expect((await q.get(1)).state, 'no lanes and no upload: it waits').to.equal('not_ready');

    await pushToBranch(q.fx, 'main', [{ message: 'Fix the lanes', files: { '.trunk/trunk.yaml': TRUNK_YAML } }]);
    await planExclusively(svc, q.queueId);
    expect(await warnings()).to.deep.equal([]);
    // The provider poll judges the waiting pull request again on the new target head.
    await q.sync();
    await q.waitState(1, 'testing');
  });

  it('lets uploaded impacted targets win over the lanes of the paths', async () => {
    const head1 = await changing(1, 'services/api/handler.go');
    const head2 = await changing(2, 'web/app.tsx');
    // Uploaded, both name one target: #2 is tested on top of #1 though their paths are in different lanes.
    for (const [n, sha] of [
      [1, head1],
      [2, head2],
    ] as const) {
      expect((await q.targets({ number: n, sha }, ['//shared:lib'])).status).to.equal(200);
    }
    await q.submitOk(1);
    await q.submitOk(2);
    await q.waitState(2, 'testing');
    expect(await runOf(2)).to.deep.equal({ tested: [2], base: [1] });
  });
});
