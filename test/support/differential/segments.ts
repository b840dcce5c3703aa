/**
 * Data-dependent domains (issue 24, `dependentDomains`): an outer loop over boxes b whose
 * inner loop over s is bounded by temporaries read from offset arrays, CSR-like. Issue 24's
 * bug: `{[s]: start<=s<stop}` with `<> start = starts[b]` ran once after the b loop.
 *
 * The bounds come in three layouts:
 *  - `startsCounts`: `<> start = starts[b]`, `<> stop = starts[b] + counts[b]`, s over [start, stop);
 *  - `ptr`: `<> start = ptr[b]`, `<> stop = ptr[b + 1]` (ptr has nb + 1 entries);
 *  - `offset`: `<> start = starts[b]`, `<> len = counts[b]`, s over [0, len), elements at start + s.
 * Segments never overlap (a scatter from parallel boxes is then no race: its warning is
 * silenced, as a user who knows the data would), may be empty, come in any order with gaps
 * for starts/counts, and lie within x; elements no segment covers keep out's sentinel.
 *
 * The instructions: a per-element output (`scatter`: out[s] = f(x[s])), a reduction over
 * each segment (`reduce`: out[b] = op(s, g(x[s])), maybe through a temporary), or both (the
 * segment's sum used by a second loop over it that writes each element). The chain may put
 * b on work-groups or work-items, split s (sequential chunks, or its inner half on
 * work-items), lane-tag s or move a bound to another address space; Loom may decline, but
 * what it runs must agree.
 */
import {
  fixParameters,
  globalArg,
  makeKernel,
  setTemporaryAddressSpace,
  splitIname,
  type DType,
  type HostArray,
} from '@loom/core';
import type { Step } from './chains.ts';
import { ExpressionGenerator, exprToString, leaf, type Scope } from './expressions.ts';
import type { FeatureSet } from './features.ts';
import type { KernelCase } from './kernels.ts';
import { tagStep } from './lanes.ts';
import { Rng } from './random.ts';

type Layout = 'startsCounts' | 'ptr' | 'offset';
type Mode = 'scatter' | 'reduce' | 'both';

/** Where each box's segment lies: non-overlapping, some empty, in any order, within n elements. */
function drawSegments(rng: Rng, layout: Layout) {
  const nb = rng.int(1, 6);
  const counts = Array.from({ length: nb }, () => (rng.chance(0.25) ? 0 : rng.int(1, 4)));
  const starts = new Array<number>(nb).fill(0);
  // ptr is a prefix sum; starts/counts may list the segments out of order, with gaps
  const order = layout === 'ptr' ? counts.map((_, k) => k) : rng.shuffle(counts.map((_, k) => k));
  let at = layout === 'ptr' ? 0 : rng.int(0, 1);
  for (const b of order) {
    starts[b] = at;
    at += counts[b] + (layout === 'ptr' ? 0 : rng.int(0, 1));
  }
  return { nb, counts, starts, n: Math.max(1, at + rng.int(0, 2)) };
}

export function generateSegmentCase(seed: number, rng: Rng, features: FeatureSet): KernelCase {
  const dtype: DType = rng.pick([
    'float32',
    'float32',
    'int32',
    ...(features.has('wideTypes') ? (['float64'] as const) : []),
  ]);
  const layout: Layout = rng.pick(['startsCounts', 'ptr', 'offset']);
  const mode: Mode = rng.pick(['scatter', 'reduce', 'both']);
  const { nb, counts, starts, n } = drawSegments(rng, layout);
  const gen = new ExpressionGenerator(rng, features, dtype);

  const bounds =
    layout === 'ptr'
      ? ['<> start = ptr[b]', '<> stop = ptr[b + 1]']
      : layout === 'startsCounts'
        ? ['<> start = starts[b]', '<> stop = starts[b] + counts[b]']
        : ['<> start = starts[b]', '<> len = counts[b]'];
  const range = (s: string) => (layout === 'offset' ? `{ [${s}]: 0<=${s}<len }` : `{ [${s}]: start<=${s}<stop }`);
  const at = (s: string) => (layout === 'offset' ? `start + ${s}` : s);
  const domains = ['{ [b]: 0<=b<nb }', range('s'), ...(mode === 'both' ? [range('s2')] : [])];

  const lines = [...bounds];
  let op = 'sum';
  if (mode !== 'scatter') {
    op = gen.reductionOp();
    const scope: Scope = {
      index: [at('s')],
      inames: ['s'],
      arrays: ['x'],
      extra: [],
      reduction: op as Scope['reduction'],
    };
    const red = `${op}(s, ${exprToString(gen.reductionBody(op, scope))})`;
    if (mode === 'both' || rng.chance(0.5)) lines.push(`<> acc = ${red}`);
    else lines.push(`out[b] = ${red}`);
    if (mode === 'reduce' && lines.at(-1)!.startsWith('<>')) {
      const outer: Scope = { index: ['b'], inames: ['b'], arrays: ['c'], extra: [] };
      lines.push(`out[b] = ${exprToString(gen.top(gen.around(leaf('acc'), gen.expr(1, outer)), outer))}`);
    }
  }
  if (mode !== 'reduce') {
    const s = mode === 'both' ? 's2' : 's';
    const scope: Scope = {
      index: [at(s)],
      inames: [s, 'b'],
      arrays: ['x'],
      extra: mode === 'both' ? [leaf('acc'), leaf('acc')] : [leaf(`(${s} - start)`)],
    };
    const body = mode === 'both' ? gen.around(leaf('acc'), gen.expr(2, scope)) : gen.expr(3, scope);
    lines.push(`out[${at(s)}] = ${exprToString(gen.top(body, scope))} {id=scatter}`);
  }
  const instructions = lines.join('\n');

  const arrays = new Map<string, readonly string[]>();
  const ints: Record<string, HostArray> = {};
  if (layout === 'ptr') {
    arrays.set('ptr', ['nb + 1']);
    ints.ptr = Int32Array.from([...starts, starts.at(-1)! + counts.at(-1)!]);
  } else {
    arrays.set('starts', ['nb']).set('counts', ['nb']);
    ints.starts = Int32Array.from(starts);
    ints.counts = Int32Array.from(counts);
  }
  arrays.set('x', ['n']);
  if (/\bc\[/.test(instructions)) arrays.set('c', ['nb']);
  const values = (pool: 'full' | 'reduction', size: number) => gen.values(pool, size);
  const inputs: Record<string, HostArray> = { ...ints, x: values(mode === 'scatter' ? 'full' : 'reduction', n) };
  if (arrays.has('c')) inputs.c = values('full', nb);
  const scatters = mode !== 'reduce';
  // elements no segment covers must keep what out held: a sentinel
  if (scatters)
    inputs.out =
      dtype === 'int32'
        ? new Int32Array(n).fill(-7)
        : dtype === 'float64'
          ? new Float64Array(n).fill(-7)
          : new Float32Array(n).fill(-7);
  const outShape = scatters ? ['n'] : ['nb'];
  const typeOf = (name: string) => (name === 'ptr' || name === 'starts' || name === 'counts' ? 'int32' : dtype);
  // x with no shape, left to the guess (shapelessArguments): drawn from a stream of its own, so
  // that a sample with the feature left out draws the same kernel otherwise
  const xShapeless = features.has('shapelessArguments') && new Rng(seed ^ 0x5a9e1e55).chance(0.5);
  const shapeless = (name: string) => name === 'x' && xShapeless;
  const argSpecs = [
    ...[...arrays].map(([name, shape]) =>
      globalArg(name, shapeless(name) ? { dtype: typeOf(name) } : { shape, dtype: typeOf(name) }),
    ),
    globalArg('out', { shape: outShape, dtype }),
    '...' as const,
  ];
  const argText = [
    ...[...arrays].map(([name, shape]) =>
      shapeless(name)
        ? `globalArg('${name}', { dtype: '${typeOf(name)}' })`
        : `globalArg('${name}', { shape: ${JSON.stringify(shape)}, dtype: '${typeOf(name)}' })`,
    ),
    `globalArg('out', { shape: ${JSON.stringify(outShape)}, dtype: '${dtype}' })`,
    "'...'",
  ];
  const options = {
    assumptions: 'nb >= 1 and n >= 1',
    ...(scatters ? { silencedWarnings: ['write_race(scatter)'] } : {}),
  };
  return {
    seed,
    dtype,
    shape: 'segments',
    domains,
    instructions,
    arrays,
    params: { n, nb },
    inputs,
    hasRule: false,
    ulpTolerance: gen.usedInexact ? 3 : 0,
    source: `makeKernel(${JSON.stringify(domains)}, \`\n${instructions}\n\`, [${argText.join(', ')}], ${JSON.stringify(options)})`,
    build: () => makeKernel(domains, instructions, argSpecs, options),
    plannedSteps: segmentSteps(rng, mode, layout, nb),
  };
}

/** Steps over the boxes and the segments, in a random order. */
function segmentSteps(rng: Rng, mode: Mode, layout: Layout, nb: number): Step[] {
  const steps: Step[] = [];
  const split = (iname: string, factor: number, options: Record<string, string>): Step => ({
    feature: 'dependentDomains',
    text: `splitIname(knl, '${iname}', ${factor}, ${JSON.stringify(options)})`,
    apply: (k) => splitIname(k, iname, factor, options),
  });
  const outer = rng.int(0, 3);
  if (outer === 1) steps.push(tagStep('dependentDomains', 'b', 'g.0'));
  // a work-group's size is fixed when the code is made: b on work-items needs nb fixed
  if (outer === 2)
    steps.push(tagStep('dependentDomains', 'b', 'l.0'), {
      feature: 'dependentDomains',
      text: `fixParameters(knl, { nb: ${nb} })`,
      apply: (k) => fixParameters(k, { nb }),
    });
  if (outer === 3) steps.push(split('b', rng.int(1, 3), { outerTag: 'g.0', innerTag: 'l.0' }));
  const localAxis = outer >= 2 ? 'l.1' : 'l.0';
  for (const s of mode === 'both' ? ['s', 's2'] : ['s']) {
    switch (rng.int(0, 4)) {
      case 1:
        steps.push(split(s, rng.int(1, 3), {}));
        break;
      case 2:
        steps.push(split(s, rng.int(2, 3), { innerTag: localAxis }));
        break;
      case 3:
        steps.push(split(s, 2, { innerTag: rng.pick(['ilp', 'unr']) }));
        break;
      case 4:
        // mostly refused (s has no constant length): now and then, to keep the refusal checked
        if (rng.chance(0.3)) steps.push(tagStep('dependentDomains', s, rng.pick(['ilp', 'ilp.seq', 'unr', localAxis])));
        break;
    }
  }
  if (rng.chance(0.25)) {
    const temp = rng.pick(['start', layout === 'offset' ? 'len' : 'stop', ...(mode === 'scatter' ? [] : ['acc'])]);
    // one bound for all boxes while b runs in parallel would be the user's own race
    const space = outer === 0 ? rng.pick(['private', 'local', 'global'] as const) : 'private';
    steps.push({
      feature: 'dependentDomains',
      text: `setTemporaryAddressSpace(knl, '${temp}', '${space}')`,
      apply: (k) => setTemporaryAddressSpace(k, temp, space),
    });
  }
  return rng.shuffle(steps);
}
