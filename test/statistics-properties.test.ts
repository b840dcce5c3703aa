// Property: on random kernels (random bounds, triangular constraints, splits with slabs and
// parallel tags) and random small parameter values, the counts getOpMap and getMemAccessMap
// give equal a brute-force enumeration of the kernel's iteration space.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import {
  collectWarnings,
  getMemAccessMap,
  getOpMap,
  globalArg,
  makeKernel,
  splitIname,
  type LoopKernel,
} from '@loom/core';

const SUBGROUP = 32;
const PARAM_MAX = 7;

interface Split {
  readonly factor: number;
  readonly slabs: readonly [number, number];
  /** Where the halves run: loops, or the inner half on a local axis and the outer on a group axis. */
  readonly parallel: boolean;
}

interface Spec {
  readonly upperI: string;
  readonly upperJ: string;
  /** An extra condition on (i, j): a triangle or a band. */
  readonly extra: string | undefined;
  readonly splitI: Split | undefined;
  readonly splitJ: Split | undefined;
}

const split: fc.Arbitrary<Split> = fc.record({
  factor: fc.integer({ min: 2, max: 4 }),
  slabs: fc.constantFrom([0, 0] as const, [0, 1] as const, [1, 1] as const),
  parallel: fc.boolean(),
});

const spec: fc.Arbitrary<Spec> = fc.record({
  upperI: fc.constantFrom('n', 'm', '2*n', '5'),
  upperJ: fc.constantFrom('n', 'm', 'n + 1', '4'),
  extra: fc.constantFrom(undefined, 'j <= i', 'i < j', 'i + j < n', 'j <= 2*i + 1', '2*j <= i + m'),
  splitI: fc.option(split, { nil: undefined }),
  splitJ: fc.option(split, { nil: undefined }),
});

/** Where each iname's halves go: i on axis 0, j on axis 1. */
function build(s: Spec): LoopKernel {
  const conditions = [`0 <= i < ${s.upperI}`, `0 <= j < ${s.upperJ}`, ...(s.extra ? [s.extra] : [])];
  let knl = makeKernel(`[n, m] -> { [i, j] : ${conditions.join(' and ')} }`, 'out[i, j] = 2*a[i, j]', [
    globalArg('a', { dtype: 'float32', shape: ['2*n + 5', 'n + m + 5'] }),
    globalArg('out', { dtype: 'float32', shape: ['2*n + 5', 'n + m + 5'], isInput: false }),
    '...',
  ]);
  for (const [iname, sp, axis] of [
    ['i', s.splitI, 0],
    ['j', s.splitJ, 1],
  ] as const) {
    if (!sp) continue;
    const tags = sp.parallel ? { outerTag: `g.${axis}`, innerTag: `l.${axis}` } : {};
    knl = splitIname(knl, iname, sp.factor, { ...tags, slabs: sp.slabs });
  }
  return knl;
}

/** The points of the original domain, by enumeration. */
function points(s: Spec, n: number, m: number): [number, number][] {
  const value = (e: string, i: number, j: number) =>
    Function('i', 'j', 'n', 'm', `return ${e};`)(i, j, n, m) as number | boolean;
  const out: [number, number][] = [];
  for (let i = 0; i < 4 * PARAM_MAX; i++) {
    for (let j = 0; j < 4 * PARAM_MAX; j++) {
      if (
        i < (value(s.upperI, i, j) as number) &&
        j < (value(s.upperJ, i, j) as number) &&
        (!s.extra || value(s.extra, i, j))
      )
        out.push([i, j]);
    }
  }
  return out;
}

/**
 * Per work-group counts see the inames that are not local: per point, (i, j) with each
 * parallel split's inner half dropped (its outer half kept); distinct such tuples.
 */
function perWorkGroup(s: Spec, pts: readonly [number, number][]): number {
  const visible = (x: number, sp: Split | undefined) => (sp?.parallel ? Math.floor(x / sp.factor) : x);
  return new Set(pts.map(([i, j]) => `${visible(i, s.splitI)},${visible(j, s.splitJ)}`)).size;
}

function workGroupSize(s: Spec): number {
  return (s.splitI?.parallel ? s.splitI.factor : 1) * (s.splitJ?.parallel ? s.splitJ.factor : 1);
}

test('property: counts of random kernels equal enumeration of their iteration space', () => {
  fc.assert(
    fc.property(spec, fc.integer({ min: 0, max: PARAM_MAX }), fc.integer({ min: 0, max: PARAM_MAX }), (s, n, m) => {
      const knl = build(s);
      const { result: opMap } = collectWarnings(() => getOpMap(knl, { subgroupSize: SUBGROUP }));
      const { result: memMap } = collectWarnings(() => getMemAccessMap(knl, { subgroupSize: SUBGROUP }));
      const pts = points(s, n, m);
      const where = `${JSON.stringify(s)} at n=${n}, m=${m}`;
      // `2*...` is one float32 multiplication per run, counted per sub-group
      const subgroups = Math.ceil(workGroupSize(s) / SUBGROUP);
      assert.is(
        opMap.filterBy({ name: ['mul'], dtype: ['float32'] }).evalAndSum({ n, m }),
        perWorkGroup(s, pts) * subgroups,
        `mul: ${where}`,
      );
      // the store of out: per work-item when work-items along l.0 write different elements
      const stores = memMap.filterBy({ direction: ['store'], variable: ['out'] });
      assert.is(stores.size, 1, where);
      const perItem = stores.keys()[0]!.countGranularity === 'workitem';
      assert.is(
        stores.evalAndSum({ n, m }),
        perItem ? pts.length : perWorkGroup(s, pts) * subgroups,
        `store: ${where}`,
      );
    }),
    { numRuns: 120, seed: 160516 },
  );
});

test.run();
