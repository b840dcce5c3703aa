/**
 * `loom stats --measured run.jsonl`: the kernels a `bench/roofline.ts --json` run predicted
 * and measured (its `bench: 'roofline'` lines), as points of the roofline plot, for the
 * device whose profile the plot draws.
 */
import { readFileSync } from 'node:fs';
import { LoomError, type TimeEstimate } from '@loom/core';
import type { PlottedKernel } from './roofline-svg.ts';

interface RooflineLine {
  readonly bench: 'roofline';
  readonly case: string;
  readonly size: number;
  readonly device: string;
  readonly details: Readonly<Record<string, string | number>>;
}

/** The run's kernels measured on `device` (a LoomError when the file has none there, naming the devices it has). */
export function measuredKernelsOf(file: string, device: string): PlottedKernel[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new LoomError(`cannot read the run ${file}: ${(e as Error).message}`);
  }
  const lines = text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Partial<RooflineLine>];
      } catch {
        return []; // a line cut short
      }
    })
    .filter(
      (l): l is RooflineLine => l.bench === 'roofline' && typeof l.device === 'string' && typeof l.details === 'object',
    );
  const here = lines.filter((l) => l.device === device);
  if (here.length === 0) {
    const devices = [...new Set(lines.map((l) => `'${l.device}'`))].join(', ') || 'none';
    throw new LoomError(
      `${file} has no roofline measurement on '${device}' (it has: ${devices}); give the profile of one of those`,
    );
  }
  return here.map((l) => ({
    name: `${l.case} (${l.size})`,
    estimate: estimateOf(l),
    measured: Number(l.details.measuredMs) / 1e3,
  }));
}

/** The prediction as the run recorded it. */
function estimateOf(l: RooflineLine): TimeEstimate {
  const d = l.details;
  const ms = (key: string) => Number(d[key]) / 1e3;
  return {
    kernel: l.case,
    seconds: ms('predictedMs'),
    computeSeconds: ms('computeMs'),
    memorySeconds: ms('memoryMs'),
    launchSeconds: ms('launchMs'),
    flops: Number(d.flops),
    bytes: Number(d.bytes),
    arithmeticIntensity: Number(d.bytes) === 0 ? Infinity : Number(d.flops) / Number(d.bytes),
    bound: d.bound === 'compute' ? 'compute' : 'memory',
    launches: 1,
    traffic: 'footprint',
  };
}
