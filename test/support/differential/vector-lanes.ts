/**
 * Vector lanes written by different work-items (`vectorLaneWrites`): an output array whose
 * last axis is a vector's lanes (`tagArrayAxes(knl, 'out', 'c,vec')`, 2 or 4 lanes), element
 * `out[i // L, i % L]` written by the work-item of `i`, so that neighbouring work-items write
 * the lanes of one vector. A target that wrote a lane as a read-modify-write of its whole
 * vector (Clang's OpenCL C does, for `out[v].s1 = x`) would lose lanes; an input read the same
 * way, as a vector or not, checks the lane reads. The reference is the kernel without the tags.
 */
import { splitIname, tagArrayAxes, tagInames, type DType } from '@loom/core';
import type { Step } from './chains.ts';
import { ExpressionGenerator, exprToString } from './expressions.ts';
import type { FeatureSet } from './features.ts';
import type { KernelCase } from './kernels.ts';
import { fixedShapeCase } from './lanes.ts';
import type { Rng } from './random.ts';

export function generateVectorLaneCase(seed: number, rng: Rng, features: FeatureSet): KernelCase {
  // dtypes every target holds as vectors (WGSL: 32-bit ones)
  const dtype: DType = rng.pick(['float32', 'float32', 'int32']);
  const L = rng.pick([2, 4]);
  const V = rng.int(1, 40);
  const gen = new ExpressionGenerator(rng, features, dtype);
  const index = [`i // ${L}`, `i % ${L}`];
  const scope = { index, inames: ['i'], arrays: ['a'], extra: [] };
  const instructions = `out[${index.join(', ')}] = ${exprToString(gen.top(gen.expr(2, scope), scope))}`;
  return fixedShapeCase({
    seed,
    dtype,
    kind: 'vectorLanes',
    domain: `{ [i]: 0<=i<${V * L} }`,
    instructions,
    inputs: ['a'],
    shape: [V, L],
    gen,
    plannedSteps: () => vectorLaneSteps(rng, /\ba\[/.test(instructions)),
  });
}

/** The lanes' axes tagged `vec`, and i spread over work-items (a split of it, or i whole on l.0). */
function vectorLaneSteps(rng: Rng, readsA: boolean): Step[] {
  const steps: Step[] = [
    {
      feature: 'vectorLaneWrites',
      text: `tagArrayAxes(knl, 'out', 'c,vec')`,
      apply: (k) => tagArrayAxes(k, 'out', 'c,vec'),
    },
  ];
  if (readsA && rng.chance(0.6))
    steps.push({
      feature: 'vectorLaneWrites',
      text: `tagArrayAxes(knl, 'a', 'c,vec')`,
      apply: (k) => tagArrayAxes(k, 'a', 'c,vec'),
    });
  if (rng.chance(0.7)) {
    const factor = rng.pick([2, 3, 4, 8, 16, 32]);
    const options = { outerTag: 'g.0', innerTag: 'l.0' };
    steps.push({
      feature: 'vectorLaneWrites',
      text: `splitIname(knl, 'i', ${factor}, ${JSON.stringify(options)})`,
      apply: (k) => splitIname(k, 'i', factor, options),
    });
  } else
    steps.push({
      feature: 'vectorLaneWrites',
      text: `tagInames(knl, { i: 'l.0' })`,
      apply: (k) => tagInames(k, { i: 'l.0' }),
    });
  return steps;
}
