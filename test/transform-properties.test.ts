/**
 * Transformations never change results: random chains of split, tag, prioritize,
 * unroll and prefetch on small kernels, compared with the untransformed kernel on
 * the CPU device.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import {
  addPrefetch,
  LoomError,
  makeKernel,
  prioritizeLoops,
  run,
  splitIname,
  tagInames,
  type LoopKernel,
} from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';

interface Base {
  readonly name: string;
  readonly kernel: () => LoopKernel;
  readonly data: (n: number) => Record<string, Float32Array>;
  readonly arrays: readonly string[];
}

const BASES: readonly Base[] = [
  {
    name: 'scale and shift',
    kernel: () => makeKernel('{ [i]: 0<=i<n }', 'out[i] = 3*a[i] - i', undefined, { assumptions: 'n >= 1' }),
    data: (n) => ({ a: Float32Array.from({ length: n }, (_, k) => (k * 7) % 11) }),
    arrays: ['a'],
  },
  {
    name: 'transpose add',
    kernel: () =>
      makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i, j] = a[j, i] + b[i, j]', undefined, { assumptions: 'n >= 1' }),
    data: (n) => ({
      a: Float32Array.from({ length: n * n }, (_, k) => k % 13),
      b: Float32Array.from({ length: n * n }, (_, k) => (k * 5) % 7),
    }),
    arrays: ['a', 'b'],
  },
  {
    name: 'row sums',
    kernel: () =>
      makeKernel('{ [i,k]: 0<=i,k<n }', 'out[i] = sum(k, a[i, k] * k)', undefined, { assumptions: 'n >= 1' }),
    data: (n) => ({ a: Float32Array.from({ length: n * n }, (_, k) => (k % 5) - 2) }),
    arrays: ['a'],
  },
];

type Step =
  | { kind: 'split'; pick: number; factor: number; tags: 0 | 1 | 2 | 3 }
  | { kind: 'unroll'; pick: number }
  | { kind: 'prioritize'; seed: number }
  | { kind: 'prefetch'; pick: number; sweepSeed: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('split' as const),
    pick: fc.nat(),
    factor: fc.integer({ min: 1, max: 5 }),
    tags: fc.constantFrom(0, 1, 2, 3) as fc.Arbitrary<0 | 1 | 2 | 3>,
  }),
  fc.record({ kind: fc.constant('unroll' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('prioritize' as const), seed: fc.nat() }),
  fc.record({ kind: fc.constant('prefetch' as const), pick: fc.nat(), sweepSeed: fc.nat() }),
);

/** Applies a step if it makes sense for the kernel; transformations that refuse are skipped. */
function apply(knl: LoopKernel, s: Step, base: Base): LoopKernel {
  const free = knl.inames.filter((n) => !knl.inameTags.has(n));
  const usedAxes = new Set(
    [...knl.inameTags.values()]
      .filter((t) => t.kind === 'local' || t.kind === 'group')
      .map((t) => `${t.kind}${(t as { axis: number }).axis}`),
  );
  try {
    switch (s.kind) {
      case 'split': {
        if (!free.length) return knl;
        const iname = free[s.pick % free.length];
        // a parallel axis may be used once: pick the first free axis of each kind
        const axis = (kind: 'local' | 'group') => [0, 1, 2].find((a) => !usedAxes.has(`${kind}${a}`));
        const outerTag = s.tags & 1 && axis('group') !== undefined ? `g.${axis('group')}` : undefined;
        const innerTag = s.tags & 2 && axis('local') !== undefined ? `l.${axis('local')}` : undefined;
        return splitIname(knl, iname, s.factor, { outerTag, innerTag });
      }
      case 'unroll': {
        const inner = free.filter((n) => n.endsWith('_inner'));
        return inner.length ? tagInames(knl, { [inner[s.pick % inner.length]]: 'unr' }) : knl;
      }
      case 'prioritize': {
        const seq = [...free];
        if (seq.length < 2) return knl;
        const a = seq[s.seed % seq.length];
        const b = seq[(s.seed >> 3) % seq.length];
        return a === b ? knl : prioritizeLoops(knl, [a, b]);
      }
      case 'prefetch': {
        const array = base.arrays[s.pick % base.arrays.length];
        if (!knl.arg(array) || knl.temporaries.has(`${array}_fetch`)) return knl;
        const sweep = knl.inames.filter((_, k) => (s.sweepSeed >> k) & 1 && k < 3);
        return addPrefetch(knl, array, sweep);
      }
    }
  } catch (e) {
    if (e instanceof LoomError) return knl;
    throw e;
  }
}

const device = cpuDevice();

test('random transformation chains keep every result', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...BASES),
      fc.array(step, { maxLength: 5 }),
      fc.integer({ min: 1, max: 9 }),
      async (base, steps, n) => {
        const reference = await run(base.kernel(), device, { ...base.data(n) });
        let knl = base.kernel();
        for (const s of steps) knl = apply(knl, s, base);
        let result;
        try {
          result = await run(knl, device, { ...base.data(n) });
        } catch (e) {
          // a combination may be impossible to generate (e.g. a footprint of non-constant size): it must say so
          if (e instanceof LoomError) return;
          throw e;
        }
        assert.equal(
          Array.from(result.out as Float32Array),
          Array.from(reference.out as Float32Array),
          `${base.name} after ${JSON.stringify(steps)}`,
        );
      },
    ),
    { numRuns: 150, seed: 20261122 },
  );
});

test.run();
