// A Chart.js chart on a canvas, rebuilt when its configuration changes. The canvas carries an
// accessible name; each page also gives the numbers as text or a table.
import { useEffect, useRef } from 'react';
import { Chart, registerables, type ChartConfiguration } from 'chart.js';

Chart.register(...registerables);
Chart.defaults.animation = false;
Chart.defaults.font.family = 'system-ui, sans-serif';

export function ChartCanvas({ config, label, height = 220 }: { config: ChartConfiguration; label: string; height?: number }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, { ...config, options: { maintainAspectRatio: false, ...config.options } });
    return () => chart.destroy();
  }, [config]);
  return (
    <div className="chart" style={{ height }}>
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}

/** A tiny line without axes: the queues list's health sparkline. */
export function Sparkline({ values, label }: { values: number[]; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
      type: 'line',
      data: {
        labels: values.map((_, i) => i),
        datasets: [{ data: values, borderColor: '#2563eb', borderWidth: 1.5, pointRadius: 0, fill: false, tension: 0.3 }],
      },
      options: {
        responsive: false,
        plugins: { legend: { display: false }, tooltip: { enabled: false } },
        scales: { x: { display: false }, y: { display: false, beginAtZero: true } },
      },
    });
    return () => chart.destroy();
  }, [values]);
  return <canvas ref={canvas} width={120} height={28} role="img" aria-label={label} />;
}
