/**
 * Differential cases for the computation library (issue 24), apart from the kernel cases:
 * a seed draws a shape (rank 1 to 3, sizes around and past a work-group) and axes, a
 * predicate (commutative or not, from test/support/predicates.ts), and runs reduce and
 * scan (inclusive or exclusive) on every device, against plain JS; and complex arrays:
 * DeviceArray round trips and a computation with complex parameters. Features
 * `computationPredicates` and `computationComplex` (features.ts) enable each half;
 * `computationComplexParameters` adds a case of computation-complex.ts (complex scalars,
 * transformations, norms and matrix products of complex parameters); `computationNoAxes` a case
 * of computation-no-axes.ts (computations with nothing to transform); `computationCuts` cuts the
 * reduce and scan passes by hand (a drawn work-group size and elements per work-item);
 * `computationMatmulConfigs` a case of computation-matmul.ts (matrixMul with a drawn tiling).
 */
import { DeviceArray, type Device } from '@loom/core';
import { pureParallel, reduce, scan } from '@loom/computation';
import { supportsDType } from '../devices.ts';
import { reduceRef, scanAlongAxes, sizeOf } from '../ndarray.ts';
import { COMMUTATIVE, NON_COMMUTATIVE, seeded } from '../predicates.ts';
import { runComplexParameterCase } from './computation-complex.ts';
import { runMatmulConfigCase } from './computation-matmul.ts';
import { runNoAxesCase } from './computation-no-axes.ts';
import type { FeatureSet } from './features.ts';

/** What one seed ran, and every disagreement with plain JS (empty: none). */
export interface ComputationCaseResult {
  readonly seed: number;
  readonly ran: readonly string[];
  readonly findings: readonly string[];
}

const SIZES = [1, 2, 3, 7, 13, 31, 64, 100, 255, 256, 257, 1000, 1531];

export async function runComputationCase(
  seed: number,
  features: FeatureSet,
  devices: readonly Device[],
): Promise<ComputationCaseResult> {
  const random = seeded(seed * 2654435761 + 17);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const ran: string[] = [];
  const findings: string[] = [];
  const check = (what: string, got: ArrayLike<number>, expected: ArrayLike<number>) => {
    const bad = firstDifference(got, expected);
    if (bad !== undefined)
      findings.push(`${what}: element ${bad} is ${got[bad]}, expected ${expected[bad]} (seed ${seed})`);
  };

  if (features.has('computationPredicates')) {
    // a shape of at most ~200 000 elements, and some of its axes in a random order (sorted for reduce)
    const rank = 1 + Math.floor(random() * 3);
    const shape: number[] = [];
    for (let k = 0; k < rank; k++) shape.push(pick(SIZES.filter((n) => sizeOf(shape) * n <= 200_000)));
    const axes = shape.map((_, k) => k).filter(() => random() < 0.6);
    if (axes.length === 0) axes.push(Math.floor(random() * rank));
    for (let k = axes.length - 1; k > 0; k--) {
      const j = Math.floor(random() * (k + 1));
      [axes[k], axes[j]] = [axes[j], axes[k]];
    }
    const p = random() < 0.6 ? pick(NON_COMMUTATIVE) : pick(COMMUTATIVE);
    const exclusive = random() < 0.5;
    const data = p.draw(sizeOf(shape), random);
    const sorted = [...axes].sort((a, b) => a - b);
    const reduced = reduceRef(data, shape, sorted, p.op, p.predicate.empty);
    const scanned = scanAlongAxes(data, shape, axes, p.op, p.predicate.empty, exclusive);
    // with computationCuts, the passes cut by hand: a drawn work-group and elements per work-item,
    // at least 16 elements a work-group (fewer would take a pass, and a kernel, per halving), and a
    // scan's block within 32 KiB of local memory (at most 256 x 29 int32 with its two buffers)
    const cut = features.has('computationCuts') ? drawCut(random) : undefined;
    const scanCut = cut && { ...cut, perItem: Math.min(cut.perItem, 29) };
    const what = `${p.name} over shape (${shape}), axes (${axes})${cut ? `, cut ${cut.workGroupSize} x ${cut.perItem}` : ''}`;
    ran.push(`reduce and ${exclusive ? 'exclusive' : 'inclusive'} scan, ${what}`);
    const r = reduce({ dtype: 'int32', shape }, p.predicate, sorted, cut);
    const s = scan({ dtype: 'int32', shape }, p.predicate, { axes, exclusive, ...scanCut });
    for (const device of devices) {
      check(
        `${device.name}: reduce, ${what}`,
        (await (await r.compile(device))(undefined, data)).output as Int32Array,
        reduced,
      );
      check(
        `${device.name}: scan, ${what}`,
        (await (await s.compile(device))(undefined, data)).output as Int32Array,
        scanned,
      );
    }
  }

  if (features.has('computationComplex')) {
    const shape = [1 + Math.floor(random() * 40), 1 + Math.floor(random() * 40)];
    const n = sizeOf(shape);
    // halves in [-4, 4): sums and products of two are exact in float32
    const parts = () => Array.from({ length: 2 * n }, () => Math.floor(random() * 16) / 2 - 4);
    const x = parts();
    const w = parts();
    const expected = Array.from({ length: 2 * n }, (_, k) => {
      const j = k - (k % 2);
      return k % 2 === 0 ? x[j] * w[j] - x[j + 1] * w[j + 1] : x[j] * w[j + 1] + x[j + 1] * w[j];
    });
    for (const dtype of ['complex64', 'complex128'] as const) {
      if (dtype === 'complex128' && !features.has('wideTypes')) continue;
      ran.push(`${dtype} round trip and product, shape (${shape})`);
      const product = pureParallel({
        params: [
          { name: 'y', dtype, shape, role: 'o' },
          { name: 'x', dtype, shape, role: 'i' },
          { name: 'w', dtype, shape, role: 'i' },
        ] as const,
        body: 'y[idx0, idx1] = x[idx0, idx1] * w[idx0, idx1]',
      });
      for (const device of devices) {
        if (!supportsDType(device, dtype === 'complex64' ? 'float32' : 'float64')) continue;
        const a = await DeviceArray.from(device, x, dtype, shape);
        try {
          check(
            `${device.name}: ${dtype} DeviceArray round trip, shape (${shape})`,
            (await a.toHost()) as Float32Array,
            x,
          );
          const host = (dtype === 'complex64' ? Float32Array : Float64Array).from(w);
          const { y } = await (await product.compile(device))(undefined, a, host);
          check(`${device.name}: ${dtype} product, shape (${shape})`, y as Float32Array, expected);
        } finally {
          a.release();
        }
      }
    }
  }
  if (features.has('computationComplexParameters')) {
    const r = await runComplexParameterCase(seed, features, devices);
    ran.push(...r.ran);
    findings.push(...r.findings);
  }
  if (features.has('computationNoAxes')) {
    const r = await runNoAxesCase(seed, features, devices);
    ran.push(...r.ran);
    findings.push(...r.findings);
  }
  if (features.has('computationMatmulConfigs')) {
    const r = await runMatmulConfigCase(seed, features, devices);
    ran.push(...r.ran);
    findings.push(...r.findings);
  }
  return { seed, ran, findings };
}

/** A work-group of 2 to 256 work-items (a power of two) and 1 to 40 elements each, at least 16 in all. */
function drawCut(random: () => number): { workGroupSize: number; perItem: number } {
  const workGroupSize = 2 ** (1 + Math.floor(random() * 8));
  const perItem = Math.max(1 + Math.floor(random() * 40), Math.ceil(16 / workGroupSize));
  return { workGroupSize, perItem };
}

function firstDifference(got: ArrayLike<number>, expected: ArrayLike<number>): number | undefined {
  if (got.length !== expected.length) return Math.min(got.length, expected.length);
  for (let k = 0; k < expected.length; k++) if (got[k] !== expected[k]) return k;
  return undefined;
}
