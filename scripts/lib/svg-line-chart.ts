// A small line chart as SVG text: categorical x, linear or logarithmic y, one line per series,
// a legend. Enough for the benchmark documents; no dependency.

export interface Series {
  name: string;
  values: (number | null)[];
}

export interface LineChart {
  title: string;
  xLabel: string;
  yLabel: string;
  categories: string[];
  series: Series[];
  logY?: boolean;
}

const COLOURS = ['#1b9e77', '#d95f02', '#7570b3', '#e7298a', '#66a61e', '#e6ab02', '#a6761d'];
const W = 720;
const H = 400;
const M = { left: 70, right: 230, top: 40, bottom: 50 };

const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function lineChartSvg(c: LineChart): string {
  const all = c.series.flatMap((s) => s.values.filter((v): v is number => v !== null && v > 0));
  const lo = c.logY ? Math.min(...all) : 0;
  const hi = Math.max(...all);
  const f = (v: number): number => (c.logY ? Math.log10(v) : v);
  const [y0, y1] = c.logY ? [Math.floor(f(lo)), Math.ceil(f(hi))] : [0, hi * 1.1];
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const x = (i: number): number => M.left + (c.categories.length === 1 ? plotW / 2 : (i * plotW) / (c.categories.length - 1));
  const y = (v: number): number => M.top + plotH - ((f(v) - y0) / (y1 - y0 || 1)) * plotH;
  const ticks = c.logY ? Array.from({ length: y1 - y0 + 1 }, (_, i) => 10 ** (y0 + i)) : Array.from({ length: 6 }, (_, i) => (y1 * i) / 5);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${M.left}" y="22" font-size="14" font-weight="bold">${escape(c.title)}</text>`,
  ];
  for (const t of ticks) {
    out.push(`<line x1="${M.left}" x2="${M.left + plotW}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#ddd"/>`);
    out.push(`<text x="${M.left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${t >= 10 ? t.toFixed(0) : Number(t.toFixed(2))}</text>`);
  }
  c.categories.forEach((cat, i) => out.push(`<text x="${x(i).toFixed(1)}" y="${M.top + plotH + 18}" text-anchor="middle">${escape(cat)}</text>`));
  out.push(`<text x="${M.left + plotW / 2}" y="${H - 10}" text-anchor="middle">${escape(c.xLabel)}</text>`);
  out.push(`<text transform="translate(16 ${M.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escape(c.yLabel)}</text>`);
  c.series.forEach((s, k) => {
    const colour = COLOURS[k % COLOURS.length]!;
    const points = s.values.flatMap((v, i) => (v !== null && v > 0 ? [`${x(i).toFixed(1)},${y(v).toFixed(1)}`] : []));
    out.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${points.join(' ')}"/>`);
    for (const p of points) out.push(`<circle cx="${p.split(',')[0]}" cy="${p.split(',')[1]}" r="3" fill="${colour}"/>`);
    out.push(`<rect x="${W - M.right + 15}" y="${M.top + k * 20}" width="12" height="12" fill="${colour}"/>`);
    out.push(`<text x="${W - M.right + 32}" y="${M.top + k * 20 + 10}">${escape(s.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
