import { useTheme } from '@mui/material';

export interface Series {
  name: string;
  values: number[];
}

/** The smallest 2, 5 or 10 times a power of ten at or above the value: axis ticks at 0, half and all of it stay round. */
function niceCeiling(value: number): number {
  if (!(value > 2)) return 2;
  const power = 10 ** Math.floor(Math.log10(value));
  return [2, 5, 10].map((m) => m * power).find((step) => step >= value) ?? 10 * power;
}

const WIDTH = 640;
const HEIGHT = 220;
const PAD = { top: 12, right: 8, bottom: 28, left: 56 };

/**
 * Grouped bars drawn as SVG (no chart library: the console's first page stays small). The chart
 * has an accessible name, each bar a tooltip title and `data-value`, and the numbers are also in
 * a table below it for screen readers and copying.
 */
export function BarChart({
  title,
  labels,
  series,
  format,
}: {
  title: string;
  labels: string[];
  series: Series[];
  format: (n: number) => string;
}) {
  const theme = useTheme();
  const colours = [theme.palette.primary.main, theme.palette.secondary.main, theme.palette.info.main];
  const axis = new Intl.NumberFormat(undefined, { notation: 'compact' });
  const max = niceCeiling(Math.max(...series.flatMap((s) => s.values)));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, labels.length);
  const barW = Math.max(1, (slot * 0.8) / series.length);
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const tickEvery = Math.ceil(labels.length / 8);
  return (
    <figure style={{ margin: 0 }}>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width="100%" role="img" aria-label={title} data-chart={title}>
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(max * f)} y2={y(max * f)} stroke={theme.palette.divider} />
            <text
              x={PAD.left - 6}
              y={y(max * f) + 4}
              textAnchor="end"
              fontSize="11"
              fill={theme.palette.text.secondary}
            >
              {axis.format(max * f)}
            </text>
          </g>
        ))}
        {labels.map((label, i) => (
          <g key={label}>
            {series.map((s, k) => {
              const v = s.values[i] ?? 0;
              return (
                <rect
                  key={s.name}
                  x={PAD.left + i * slot + slot * 0.1 + k * barW}
                  y={y(v)}
                  width={barW}
                  height={PAD.top + plotH - y(v)}
                  fill={colours[k % colours.length]}
                  data-series={s.name}
                  data-label={label}
                  data-value={v}
                >
                  <title>{`${label} · ${s.name} : ${format(v)}`}</title>
                </rect>
              );
            })}
            {i % tickEvery === 0 && (
              <text
                x={PAD.left + i * slot + slot / 2}
                y={HEIGHT - 8}
                textAnchor="middle"
                fontSize="11"
                fill={theme.palette.text.secondary}
              >
                {label.slice(5)}
              </text>
            )}
          </g>
        ))}
      </svg>
      <figcaption style={{ display: 'flex', gap: 16, fontSize: 13 }}>
        {series.map((s, k) => (
          <span key={s.name}>
            <span
              aria-hidden
              style={{
                display: 'inline-block',
                width: 10,
                height: 10,
                marginRight: 4,
                background: colours[k % colours.length],
              }}
            />
            {s.name}
          </span>
        ))}
      </figcaption>
      <details>
        <summary style={{ fontSize: 13 }}>{title}</summary>
        <table style={{ fontSize: 12 }}>
          <thead>
            <tr>
              <th scope="col" />
              {series.map((s) => (
                <th key={s.name} scope="col">
                  {s.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {labels.map((label, i) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                {series.map((s) => (
                  <td key={s.name}>{format(s.values[i] ?? 0)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
