// Lanes from paths (docs/lanes.md): a pull request's lanes from the files it changes, `ALL` for a
// barrier, an unmapped file or files not known; the configuration read from .trunk/trunk.yaml and
// refused, with each problem's path, when it cannot be used.
import { expect } from 'chai';
import { laneCaps, laneTargets, readPathLanes, type PathLanes } from '../../../shared/merge-queue/domain/path-lanes.js';
import { parseTrunkLanes } from '../../../shared/merge-queue/domain/trunk-config.js';

const lanes: PathLanes = {
  areas: [
    { name: 'api', paths: ['services/api/**'], maxConcurrency: 2 },
    { name: 'web', paths: ['web/**', 'shared/ui/**'], maxConcurrency: null },
    { name: 'shared', paths: ['shared/**'], maxConcurrency: null },
  ],
  barriers: ['package-lock.json', '.github/**'],
};

describe('lanes from paths', () => {
  it("names each lane a pull request's files fall in, a file in two areas in both", () => {
    expect(laneTargets(lanes, ['services/api/a.go', 'services/api/b/c.go'])).to.deep.equal(['lane:api']);
    expect(laneTargets(lanes, ['web/app.tsx', 'services/api/a.go'])).to.deep.equal(['lane:api', 'lane:web']);
    expect(laneTargets(lanes, ['shared/ui/button.tsx'])).to.deep.equal(['lane:shared', 'lane:web']);
    expect(laneTargets(lanes, []), 'no file changed: nothing to conflict with').to.deep.equal([]);
  });

  it('puts a pull request in every lane for a barrier, a file no lane covers, or files not known', () => {
    expect(laneTargets(lanes, ['web/app.tsx', 'package-lock.json'])).to.equal('ALL');
    expect(laneTargets(lanes, ['.github/workflows/ci.yml'])).to.equal('ALL');
    expect(laneTargets(lanes, ['web/app.tsx', 'README.md'])).to.equal('ALL');
    expect(laneTargets(lanes, null)).to.equal('ALL');
  });

  it('gives each capped lane its cap by target name', () => {
    expect(laneCaps(lanes)).to.deep.equal({ 'lane:api': 2 });
  });

  it('reads merge.lanes from .trunk/trunk.yaml, and says what it cannot use', () => {
    const yaml = (lanesYaml: string) => `version: 0.1\nmerge:\n  lanes:\n${lanesYaml}`;
    expect(parseTrunkLanes(yaml('    areas:\n      - {name: api, paths: ["services/**"]}\n'))).to.deep.equal({
      kind: 'lanes',
      lanes: { areas: [{ name: 'api', paths: ['services/**'], maxConcurrency: null }], barriers: [] },
    });
    expect(parseTrunkLanes('version: 0.1\n')).to.deep.equal({ kind: 'none' });
    expect(parseTrunkLanes(null)).to.deep.equal({ kind: 'absent' });
    const bad = parseTrunkLanes(yaml('    areas:\n      - {name: api, paths: ["/services/**"]}\n      - {name: api, paths: ["x/**"]}\n'));
    expect(bad.kind).to.equal('invalid');
    expect(bad.kind === 'invalid' && bad.message)
      .to.contain('/areas/0/paths/0')
      .and.contain('/areas/1/name');
    const shape = readPathLanes({ areas: [], barriers: 'x' });
    expect(shape.ok).to.equal(false);
  });
});
