/**
 * The roofline as an SVG picture: performance (flop/s) against arithmetic intensity
 * (flop/byte), both on log scales; the device's roofs (bandwidth × intensity, then its flop
 * rate); each kernel a point at its intensity, hollow where predicted, filled where
 * measured. Kernels that do no floating-point work have no place on it and are listed below.
 */
import type { DeviceProfile, TimeEstimate } from '@loom/core';

export interface PlottedKernel {
  readonly name: string;
  readonly estimate: TimeEstimate;
  /** Seconds per launch measured on the device, when it was run. */
  readonly measured?: number | undefined;
}

const WIDTH = 720;
const HEIGHT = 460;
const LEFT = 80;
const RIGHT = 30;
const TOP = 40;
const BOTTOM = 60;

export function rooflineSvg(profile: DeviceProfile, kernels: readonly PlottedKernel[]): string {
  const plotted = kernels.filter((k) => k.estimate.flops > 0 && Number.isFinite(k.estimate.arithmeticIntensity));
  const ridge = profile.flopRate / profile.bandwidth;
  const rates = plotted.flatMap((k) => [
    k.estimate.flops / k.estimate.seconds,
    ...(k.measured ? [k.estimate.flops / k.measured] : []),
  ]);
  const intensities = plotted.map((k) => k.estimate.arithmeticIntensity);
  const [x0, x1] = decades([ridge / 100, ridge * 100, ...intensities]);
  const [y0, y1] = decades([profile.flopRate * 2, (x0 * profile.bandwidth) / 2, ...rates]);
  const x = (v: number) => LEFT + ((Math.log10(v) - x0) / (x1 - x0)) * (WIDTH - LEFT - RIGHT);
  const y = (v: number) => HEIGHT - BOTTOM - ((Math.log10(v) - y0) / (y1 - y0)) * (HEIGHT - TOP - BOTTOM);

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`);
  out.push(
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="14">Roofline: ${escape(profile.device)}</text>`,
  );
  // axes with a tick per decade
  for (let d = x0; d <= x1; d++) {
    out.push(`<line x1="${x(10 ** d)}" y1="${TOP}" x2="${x(10 ** d)}" y2="${HEIGHT - BOTTOM}" stroke="#eee"/>`);
    out.push(`<text x="${x(10 ** d)}" y="${HEIGHT - BOTTOM + 16}" text-anchor="middle">1e${d}</text>`);
  }
  for (let d = y0; d <= y1; d++) {
    out.push(`<line x1="${LEFT}" y1="${y(10 ** d)}" x2="${WIDTH - RIGHT}" y2="${y(10 ** d)}" stroke="#eee"/>`);
    out.push(`<text x="${LEFT - 6}" y="${y(10 ** d) + 4}" text-anchor="end">1e${d}</text>`);
  }
  out.push(
    `<rect x="${LEFT}" y="${TOP}" width="${WIDTH - LEFT - RIGHT}" height="${HEIGHT - TOP - BOTTOM}" fill="none" stroke="#333"/>`,
  );
  out.push(
    `<text x="${(LEFT + WIDTH - RIGHT) / 2}" y="${HEIGHT - 18}" text-anchor="middle">arithmetic intensity (flop/byte)</text>`,
  );
  out.push(
    `<text x="18" y="${(TOP + HEIGHT - BOTTOM) / 2}" text-anchor="middle" transform="rotate(-90 18 ${(TOP + HEIGHT - BOTTOM) / 2})">flop/s</text>`,
  );
  // what is drawn in the frame stays in it
  out.push(
    `<clipPath id="frame"><rect x="${LEFT}" y="${TOP}" width="${WIDTH - LEFT - RIGHT}" height="${HEIGHT - TOP - BOTTOM}"/></clipPath>`,
  );
  out.push('<g clip-path="url(#frame)">');
  // the roofs: memory up to the ridge, compute after it
  const left = 10 ** x0;
  const right = 10 ** x1;
  out.push(
    `<polyline points="${x(left)},${y(left * profile.bandwidth)} ${x(ridge)},${y(profile.flopRate)} ${x(right)},${y(profile.flopRate)}" fill="none" stroke="#c33" stroke-width="2"/>`,
  );
  out.push(
    `<text x="${x(ridge) + 6}" y="${y(profile.flopRate) - 6}" fill="#c33">${format(profile.flopRate)} flop/s, ${format(profile.bandwidth)} B/s</text>`,
  );
  // the kernels
  plotted.forEach((k, n) => {
    const ai = k.estimate.arithmeticIntensity;
    const predicted = k.estimate.flops / k.estimate.seconds;
    out.push(
      `<circle cx="${x(ai)}" cy="${y(predicted)}" r="5" fill="none" stroke="#36c" stroke-width="2"><title>${escape(k.name)}: predicted ${format(predicted)} flop/s</title></circle>`,
    );
    if (k.measured) {
      const measured = k.estimate.flops / k.measured;
      out.push(
        `<circle cx="${x(ai)}" cy="${y(measured)}" r="5" fill="#36c"><title>${escape(k.name)}: measured ${format(measured)} flop/s</title></circle>`,
      );
    }
    out.push(`<text x="${x(ai) + 8}" y="${y(predicted) + 4 + 12 * (n % 2)}">${escape(k.name)}</text>`);
  });
  out.push('</g>');
  out.push(
    `<text x="${LEFT}" y="${HEIGHT - 4}" font-size="11">hollow: predicted; filled: measured${legendOfSkipped(kernels, plotted)}</text>`,
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** Whole decades (exponents) around the values. */
function decades(values: readonly number[]): [number, number] {
  const logs = values.filter((v) => v > 0 && Number.isFinite(v)).map(Math.log10);
  return [Math.floor(Math.min(...logs)), Math.ceil(Math.max(...logs))];
}

function legendOfSkipped(all: readonly PlottedKernel[], plotted: readonly PlottedKernel[]): string {
  const skipped = all.filter((k) => !plotted.includes(k)).map((k) => k.name);
  return skipped.length ? `; no floating-point work: ${escape(skipped.join(', '))}` : '';
}

/** Three significant digits, as `1.23e9` beyond [0.001, 10000). */
export function format(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a >= 1e-3 && a < 1e4 ? v.toPrecision(3) : v.toExponential(2).replace('e+', 'e');
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
