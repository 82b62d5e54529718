/**
 * Charts through uPlot (small, canvas-drawn): a series per key over days, as bars or lines. The canvas is
 * described for screen readers by the figure's caption and a table of the same numbers beside it.
 */
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

const PALETTE = ["#1f5fbf", "#c2410c", "#15803d", "#7e22ce", "#b91c1c", "#0e7490", "#a16207", "#4d4d4d"];

export interface Series {
  label: string;
  values: (number | null)[];
}

export function TimeChart({ title, days, series, kind = "bars", format }: { title: string; days: string[]; series: Series[]; kind?: "bars" | "lines"; format?: (n: number) => string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current || days.length === 0) return;
    const x = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const bars = uPlot.paths.bars?.({ size: [0.8, 40], align: 0 });
    const plot = new uPlot(
      {
        width: Math.max(320, host.current.clientWidth || 640),
        height: 220,
        legend: { show: series.length > 1 },
        cursor: { drag: { x: false, y: false } },
        axes: [{}, { values: (_u, ticks) => ticks.map((t) => (format ? format(t) : String(t))), size: 70 }],
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.label,
            stroke: PALETTE[i % PALETTE.length],
            fill: kind === "bars" ? `${PALETTE[i % PALETTE.length]}99` : undefined,
            width: kind === "bars" ? 0 : 2,
            paths: kind === "bars" ? bars : undefined,
            points: { show: kind === "lines" && days.length < 3 },
          })),
        ],
      },
      [x, ...series.map((s) => s.values)] as uPlot.AlignedData,
      host.current,
    );
    return () => plot.destroy();
  }, [days, series, kind, format]);
  if (days.length === 0) return <p class="muted">No data for this period.</p>;
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={host} role="img" aria-label={`${title}: ${series.map((s) => s.label).join(", ")} over ${days.length} days`} />
    </figure>
  );
}
