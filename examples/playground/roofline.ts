/** The roofline chart of the kernel tab's statistics, as SVG elements of the page. */
import type { KernelStatistics } from './stats.ts';

const W = 360;
const H = 220;
const PAD = { left: 48, right: 12, top: 14, bottom: 34 };

/**
 * The roofline (flop/s against flop/byte, log-log): the bandwidth roof up to the ridge, the
 * compute roof after it; the kernel a point at its intensity and its measured rate (filled),
 * and at its predicted rate (hollow).
 */
export function rooflineChart(stats: KernelStatistics): SVGSVGElement {
  const { profile } = stats;
  const ridge = profile.flopRate / profile.bandwidth;
  const measuredRate = stats.flops / stats.seconds;
  const predictedRate = stats.flops / stats.estimate.seconds;
  const plotted = stats.flops > 0 && Number.isFinite(stats.intensity);
  const xs = [ridge / 100, ridge * 100, ...(plotted ? [stats.intensity] : [])].map(Math.log10);
  const ys = [
    profile.flopRate * 3,
    (profile.bandwidth * ridge) / 1e4,
    ...(plotted ? [measuredRate, predictedRate] : []),
  ].map(Math.log10);
  const [x0, x1] = [Math.floor(Math.min(...xs)), Math.ceil(Math.max(...xs))];
  const [y0, y1] = [Math.floor(Math.min(...ys)), Math.ceil(Math.max(...ys))];
  const x = (v: number) => PAD.left + ((Math.log10(v) - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
  const y = (v: number) => H - PAD.bottom - ((Math.log10(v) - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);

  const svg = svgElement('svg', {
    viewBox: `0 0 ${W} ${H}`,
    role: 'img',
    'aria-label': `roofline of ${profile.device}`,
  }) as SVGSVGElement;
  svg.append(svgElement('rect', { width: W, height: H, fill: 'white' }));
  for (let d = x0; d <= x1; d++) svg.append(text(x(10 ** d), H - PAD.bottom + 14, `1e${d}`, 'middle'));
  for (let d = y0; d <= y1; d++) svg.append(text(PAD.left - 4, y(10 ** d) + 4, `1e${d}`, 'end'));
  svg.append(text(W / 2, H - 4, 'arithmetic intensity (flop/byte)', 'middle'));
  svg.append(text(4, PAD.top - 4, 'flop/s', 'start'));
  svg.append(
    svgElement('rect', {
      x: PAD.left,
      y: PAD.top,
      width: W - PAD.left - PAD.right,
      height: H - PAD.top - PAD.bottom,
      fill: 'none',
      stroke: '#bbb',
    }),
  );
  const left = 10 ** x0;
  const right = 10 ** x1;
  const roof = `M${x(left)},${y(left * profile.bandwidth)} L${x(ridge)},${y(profile.flopRate)} L${x(right)},${y(profile.flopRate)}`;
  svg.append(svgElement('path', { d: roof, fill: 'none', stroke: '#1f5fbf', 'stroke-width': 2 }));
  if (plotted) {
    svg.append(
      svgElement('circle', {
        cx: x(stats.intensity),
        cy: y(predictedRate),
        r: 5,
        fill: 'none',
        stroke: '#c0392b',
        'stroke-width': 1.5,
      }),
    );
    svg.append(
      svgElement('circle', {
        cx: x(stats.intensity),
        cy: y(measuredRate),
        r: 5,
        fill: '#c0392b',
        'data-point': 'measured',
      }),
    );
  } else svg.append(text(W / 2, H / 2, 'no floating-point work: no point on the roofline', 'middle'));
  return svg;
}

function svgElement(name: string, attributes: Readonly<Record<string, string | number>>): SVGElement {
  const element = document.createElementNS('http://www.w3.org/2000/svg', name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
}

function text(px: number, py: number, content: string, anchor: 'start' | 'middle' | 'end'): SVGElement {
  const element = svgElement('text', { x: px, y: py, 'text-anchor': anchor, 'font-size': 10, fill: '#333' });
  element.textContent = content;
  return element;
}
