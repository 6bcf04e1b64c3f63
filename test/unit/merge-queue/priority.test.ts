import { expect } from 'chai';
import { nameForValue, resolvePriority } from '../../../shared/merge-queue/domain/priority.js';

describe('priority', () => {
  it('defaults to medium (100) when absent or null', () => {
    for (const input of [undefined, null]) {
      const r = resolvePriority(input);
      expect(r).to.deep.equal({ ok: true, priority: { value: 100, name: 'medium', usedDefaultPriorityName: 'medium' } });
    }
  });

  it('maps each name to its value, in any letter case', () => {
    const cases: [string, number][] = [
      ['urgent', 0],
      ['HIGH', 10],
      ['Medium', 100],
      ['low', 200],
    ];
    for (const [name, value] of cases) {
      const r = resolvePriority(name);
      expect(r.ok && r.priority.value, name).to.equal(value);
      expect(r.ok && r.priority.name).to.equal(name.toLowerCase());
      expect(r.ok && r.priority.usedDefaultPriorityName).to.equal(name.toLowerCase());
    }
  });

  it('accepts numbers 0–255 and names them by band', () => {
    expect(resolvePriority(0)).to.deep.include({ ok: true });
    expect(resolvePriority(255)).to.deep.include({ ok: true });
    expect([0, 1, 10, 11, 100, 101, 200, 255].map(nameForValue)).to.deep.equal(['urgent', 'high', 'high', 'medium', 'medium', 'low', 'low', 'low']);
  });

  it('rejects out-of-range numbers, fractions and unknown names', () => {
    for (const bad of [-1, 256, 4294967295, 1.5, 'default', '', 'urgentt']) {
      expect(resolvePriority(bad).ok, String(bad)).to.equal(false);
    }
  });
});
