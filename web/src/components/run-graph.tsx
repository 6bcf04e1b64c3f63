// The groups being tested, each drawn on its predicted base: the target branch at the root, and
// an edge from a run to the run testing the last pull request of its base. Batches show every
// pull request they test, a stack's members as one chain (#2 → #3 → #4) in a box with a double
// outline; bisection runs are dashed. Laid out by dagre, drawn as SVG links.
import { useMemo } from 'react';
import { Link } from 'react-router';
import dagre from '@dagrejs/dagre';
import type { TestRunSummary } from '../api/types';
import { runTitle, stacksIn, type StackPlace } from '../stack-groups';

const NODE_W = 190;
const NODE_H = 54;

interface Props {
  runs: TestRunSummary[];
  branch: string;
  linkTo: (runId: string) => string;
  /** The stack place of a queued pull request, when it is a stack member. */
  stackOf: (pr: number) => StackPlace | undefined;
}

/** What a run is, as its node's second line says it. */
function runKind(run: TestRunSummary, stackOf: Props['stackOf']): string {
  if (run.kind === 'bisection') return 'bisection';
  const stacks = stacksIn(run.testedPrs, stackOf);
  const [only] = [...stacks.values()];
  if (stacks.size === 1 && only === run.testedPrs.length) return `stack of ${only}`;
  return run.testedPrs.length > 1 ? `batch of ${run.testedPrs.length}` : 'single';
}

export function RunGraph({ runs, branch, linkTo, stackOf }: Props) {
  const layout = useMemo(() => {
    const g = new dagre.graphlib.Graph();
    g.setGraph({ rankdir: 'LR', nodesep: 18, ranksep: 46, marginx: 8, marginy: 8 });
    g.setDefaultEdgeLabel(() => ({}));
    const ROOT = '__target__';
    g.setNode(ROOT, { width: 120, height: NODE_H });
    const testedBy = new Map<number, string>();
    for (const r of runs) for (const pr of r.testedPrs) testedBy.set(pr, r.id);
    for (const r of runs) {
      g.setNode(r.id, { width: NODE_W, height: NODE_H });
      const lastBase = r.basePrs[r.basePrs.length - 1];
      const parent = lastBase === undefined ? ROOT : (testedBy.get(lastBase) ?? ROOT);
      g.setEdge(parent, r.id);
    }
    dagre.layout(g);
    const graph = g.graph();
    return {
      width: graph.width ?? 0,
      height: graph.height ?? 0,
      root: g.node(ROOT),
      nodes: runs.map((r) => ({ run: r, box: g.node(r.id) })),
      edges: g.edges().map((e) => g.edge(e).points),
    };
  }, [runs]);

  return (
    <svg className="run-graph" width={layout.width} height={layout.height} role="group" aria-label="Test runs on their predicted bases">
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" fill="#94a3b8" />
        </marker>
      </defs>
      {layout.edges.map((points, i) => (
        <polyline
          key={i}
          points={points.map((p: { x: number; y: number }) => `${p.x},${p.y}`).join(' ')}
          fill="none"
          stroke="#94a3b8"
          strokeWidth={1.5}
          markerEnd="url(#arrow)"
        />
      ))}
      <g transform={`translate(${layout.root.x - 60},${layout.root.y - NODE_H / 2})`}>
        <rect width={120} height={NODE_H} rx={6} className="node-target" />
        <text x={60} y={32} textAnchor="middle">
          {branch}
        </text>
      </g>
      {layout.nodes.map(({ run, box }) => {
        const title = runTitle(run.testedPrs, stackOf);
        const kind = runKind(run, stackOf);
        const holdsStack = stacksIn(run.testedPrs, stackOf).size > 0;
        return (
          // Named by its visible text (what it tests, its kind and status), as a sighted user reads it.
          <Link key={run.id} to={linkTo(run.id)}>
            <g transform={`translate(${box.x - NODE_W / 2},${box.y - NODE_H / 2})`}>
              <rect width={NODE_W} height={NODE_H} rx={6} className={`node-run status-${run.status} kind-${run.kind}`} />
              {holdsStack && <rect x={3} y={3} width={NODE_W - 6} height={NODE_H - 6} rx={4} className="node-stack" />}
              <text x={10} y={22} className="node-title">
                {title}
              </text>
              <text x={10} y={42} className="node-sub">
                {kind} · {run.status.replaceAll('_', ' ')}
              </text>
            </g>
          </Link>
        );
      })}
    </svg>
  );
}
