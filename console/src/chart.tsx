import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface Series {
  readonly label: string;
  readonly color: string;
}

interface Props {
  readonly title: string;
  readonly unit: string;
  readonly series: readonly Series[];
  /** [times in seconds, then one array per series]. */
  readonly data: readonly (readonly (number | null)[])[];
}

/**
 * A time chart that redraws as points arrive. The canvas is an image to assistive technology,
 * so the figure also states each series' latest value in text.
 */
export function Chart({ title, unit, series, data }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);

  useEffect(() => {
    const element = box.current!;
    const make = () =>
      new uPlot(
        {
          width: Math.max(260, element.clientWidth),
          height: 200,
          legend: { show: false },
          cursor: { show: false },
          scales: { y: { range: (_u, min, max) => [0, Math.max(1, max * 1.1, min)] } },
          axes: [{ stroke: '#374151' }, { stroke: '#374151', size: 56 }],
          series: [
            {},
            ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: false } })),
          ],
        },
        data as uPlot.AlignedData,
        element,
      );
    plot.current = make();
    const resize = new ResizeObserver(() =>
      plot.current?.setSize({ width: Math.max(260, element.clientWidth), height: 200 }),
    );
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
    // The series are fixed for the chart's life; data changes are handled below.
  }, []);

  useEffect(() => {
    plot.current?.setData(data as uPlot.AlignedData);
  }, [data]);

  const latest = series.map((s, i) => {
    const values = data[i + 1] ?? [];
    const value = values[values.length - 1];
    return { ...s, value: value === undefined || value === null ? '—' : String(value) };
  });
  return (
    <figure class="chart card">
      <figcaption>
        <h2>{title}</h2>
        <ul class="legend">
          {latest.map((s) => (
            <li key={s.label}>
              <span class="swatch" aria-hidden="true" style={{ background: s.color }} />
              {s.label}: <strong>{s.value}</strong> {unit}
            </li>
          ))}
        </ul>
      </figcaption>
      <div
        ref={box}
        class="chart-canvas"
        role="img"
        aria-label={`${title}: ${latest.map((s) => `${s.label} ${s.value} ${unit}`).join(', ')}`}
      />
    </figure>
  );
}
