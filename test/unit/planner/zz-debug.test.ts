import { randomWorld, makeReady, answerCi, advanceTime } from '/work/main/test/unit/planner/random-queues.js';
const seed = Number(process.env.SEED ?? 22);
const mode = (process.env.MODE ?? 'single') as 'single' | 'parallel';
describe('debug', () => {
  it('runs', () => {
    const w = randomWorld(seed, process.env.MODE === 'any' ? {} : { mode, uniformPriority: true });
    console.log('bad', [...w.sim.bad], 'targets', JSON.stringify(w.sim.targets));
    for (let i = 0; i < 300; i++) {
      for (let p = 0; p < 8; p++) {
        const acts = w.sim.step();
        if (acts.length === 0) break;
        console.log(`  pass ${p}:`, acts.map((a) => a.kind === 'transition_entry' ? `${a.entry.entryId}:${a.entry.expectedState}->${a.to}(${a.reason})` : a.kind === 'start_run' ? `start[${a.runKind}] ${a.tested.map(t=>t.entryId)} on ${a.base.map(b=>b.entryId)}` : a.kind === 'merge' ? `merge ${a.items.map(i=>i.entryId)} by ${a.proofRunId}` : a.kind === 'cancel_run' ? `cancel ${a.runId} ${a.reason}` : a.kind).join(' | '));
      }
      if (w.sim.allTerminal()) { console.log('done'); return; }
      const roll = w.random();
      if (w.waiting.length > 0 && (roll < 0.3 || w.sim.inProgress().length === 0)) { makeReady(w); console.log('ev ready'); continue; }
      const before = new Set(w.sim.inProgress().map(r=>r.id));
      if (answerCi(w)) { const r = [...before].map(id=>w.sim.runs.get(id)!).find(r=>r.status!=='in_progress')!; console.log('ev ci', r.id, r.entryIds, 'base', r.baseEntryIds, r.status); continue; }
      advanceTime(w); console.log('ev time');
    }
  });
});
