/**
 * Lane temporaries (issue 24, `laneTemporaries`): a temporary written inside a loop that
 * becomes lanes (`ilp`, `ilp.seq`, `unr`, `vec`, or the inner half of a split tagged so) and
 * read in those lanes or in a later loop, with `l.`/`g.` tags on the other iname. Issue 24's
 * bug: a local `<> a[i] = 10*i + j` over `i: l.0, j: ilp` had one copy for all lanes.
 *
 * Extents are constants (a private or local temporary has a fixed size, and lanes need a
 * constant trip count). The temporary comes in four forms:
 *  - `scalar`: `<> t = …` per (i, j), read in the same iteration;
 *  - `byI`: `<> t[i] = …`, one cell per i rewritten by every lane (local when i is on l.);
 *  - `byJ`: `<> t[j] = …`, one cell per lane, read in the same iteration;
 *  - `later`: `<> t[j] = …`, read by a second loop over j2 at j2 and J − 1 − j2, so a lane
 *    reads what another lane wrote.
 * The chain puts j (or the inner half of j) in lanes, maybe i on work-items or groups, maybe
 * moves t to private, local or global memory, in a random order (the tag may come after the
 * move), then a few of the generic steps.
 */
import { globalArg, makeKernel, setTemporaryAddressSpace, splitIname, tagInames, type DType } from '@loom/core';
import type { Step } from './chains.ts';
import { ExpressionGenerator, exprToString, leaf, type Scope } from './expressions.ts';
import type { FeatureSet } from './features.ts';
import type { KernelCase, Shape } from './kernels.ts';
import type { Rng } from './random.ts';

type Form = 'scalar' | 'byI' | 'byJ' | 'later';

export function generateLaneCase(seed: number, rng: Rng, features: FeatureSet): KernelCase {
  const dtype: DType = rng.pick([
    'float32',
    'float32',
    'int32',
    ...(features.has('wideTypes') ? (['float64'] as const) : []),
  ]);
  const form: Form = rng.pick(['scalar', 'byI', 'byJ', 'later']);
  const I = rng.int(1, 9);
  // 4 often: the width a vec tag takes on every target
  const J = rng.pick([2, 3, 4, 4, 5]);
  const gen = new ExpressionGenerator(rng, features, dtype);
  const later = form === 'later';
  const domain = later ? `{ [i,j,j2]: 0<=i<${I} and 0<=j<${J} and 0<=j2<${J} }` : `{ [i,j]: 0<=i<${I} and 0<=j<${J} }`;
  const writeScope: Scope = { index: ['i', 'j'], inames: ['i', 'j'], arrays: ['a'], extra: [] };
  const target = form === 'scalar' ? 't' : form === 'byI' ? 't[i]' : 't[j]';
  const lines = [`<> ${target} = ${exprToString(gen.expr(2, writeScope))} {id=write}`];
  if (later) {
    // the lane J - 1 - j2 wrote what j2 reads (an affine index: t's shape is inferred)
    const other = leaf(`t[${J - 1} - j2]`);
    const readScope: Scope = { index: ['i', 'j2'], inames: ['i', 'j2'], arrays: ['b'], extra: [leaf('t[j2]'), other] };
    const both = gen.around(other, gen.around(leaf('t[j2]'), gen.expr(2, readScope)));
    lines.push(`out[i, j2] = ${exprToString(gen.top(both, readScope))} {id=read}`);
  } else {
    const ref = leaf(target);
    const readScope: Scope = { index: ['i', 'j'], inames: ['i', 'j'], arrays: ['b'], extra: [ref] };
    lines.push(`out[i, j] = ${exprToString(gen.top(gen.around(ref, gen.expr(2, readScope)), readScope))} {id=read}`);
  }
  return fixedShapeCase({
    seed,
    dtype,
    kind: 'lanes',
    domain,
    instructions: lines.join('\n'),
    inputs: ['a', 'b'],
    shape: [I, J],
    gen,
    plannedSteps: () => laneSteps(rng, I, form),
  });
}

/**
 * A case over arrays of one constant `shape`: those of `inputs` its instructions read, filled by
 * `gen`, and `out` (the families of lanes.ts and vector-lanes.ts, which need no parameters).
 */
export function fixedShapeCase(c: {
  readonly seed: number;
  readonly dtype: DType;
  readonly kind: Shape;
  readonly domain: string;
  readonly instructions: string;
  readonly inputs: readonly string[];
  readonly shape: readonly number[];
  readonly gen: ExpressionGenerator;
  /** Drawn after the inputs, from the same generator (a seed's case stays what it was). */
  readonly plannedSteps: () => readonly Step[];
}): KernelCase {
  const { seed, dtype, domain, instructions, shape, gen } = c;
  const arrays = new Map<string, readonly string[]>();
  for (const name of c.inputs) if (new RegExp(`\\b${name}\\[`).test(instructions)) arrays.set(name, shape.map(String));
  const size = shape.reduce((a, b) => a * b, 1);
  const inputs = Object.fromEntries([...arrays.keys()].map((name) => [name, gen.values('full', size)]));
  const argSpecs = [
    ...[...arrays.keys()].map((name) => globalArg(name, { shape, dtype })),
    globalArg('out', { shape, dtype }),
  ];
  const argText = [...arrays.keys(), 'out'].map(
    (name) => `globalArg('${name}', { shape: ${JSON.stringify(shape)}, dtype: '${dtype}' })`,
  );
  return {
    seed,
    dtype,
    shape: c.kind,
    domains: domain,
    instructions,
    arrays,
    params: {},
    inputs,
    hasRule: false,
    ulpTolerance: gen.usedInexact ? 3 : 0,
    source: `makeKernel(${JSON.stringify(domain)}, \`\n${instructions}\n\`, [${argText.join(', ')}])`,
    build: () => makeKernel(domain, instructions, argSpecs),
    plannedSteps: c.plannedSteps(),
  };
}

/** The steps that make lanes of j and spread i, in a random order. */
function laneSteps(rng: Rng, I: number, form: Form): Step[] {
  const steps: Step[] = [];
  const laneTag = rng.pick(['ilp', 'ilp.seq', 'unr', 'vec']);
  if (rng.chance(0.65)) {
    steps.push(tagStep('laneTemporaries', 'j', laneTag));
  } else {
    // the inner half of a split becomes the lanes (a guard when J is not a multiple)
    const factor = rng.pick([2, 2, 3, 4]);
    const options = { innerTag: laneTag };
    steps.push({
      feature: 'laneTemporaries',
      text: `splitIname(knl, 'j', ${factor}, ${JSON.stringify(options)})`,
      apply: (k) => splitIname(k, 'j', factor, options),
    });
  }
  if (form === 'later' && rng.chance(0.4))
    steps.push(tagStep('laneTemporaries', 'j2', rng.pick(['ilp', 'unr', 'l.1'])));
  const spread = rng.int(0, 3);
  if (spread === 1) steps.push(tagStep('laneTemporaries', 'i', rng.pick(['l.0', 'g.0'])));
  if (spread === 2) {
    const factor = rng.int(1, Math.max(1, I));
    const options = { outerTag: 'g.0', innerTag: 'l.0' };
    steps.push({
      feature: 'laneTemporaries',
      text: `splitIname(knl, 'i', ${factor}, ${JSON.stringify(options)})`,
      apply: (k) => splitIname(k, 'i', factor, options),
    });
  }
  if (rng.chance(0.5)) {
    // only t[i] has a cell per work-item: any other t made local or global while i runs on
    // work-items would be the user's own race (warned, and compared only with warnedRaces)
    const shared = form === 'byI' || spread === 0 || (spread === 1 && steps.at(-1)!.text.includes("'g.0'"));
    const space = shared ? rng.pick(['private', 'local', 'local', 'global'] as const) : 'private';
    steps.push({
      feature: 'laneTemporaries',
      text: `setTemporaryAddressSpace(knl, 't', '${space}')`,
      apply: (k) => setTemporaryAddressSpace(k, 't', space),
    });
  }
  return rng.shuffle(steps);
}

/** A step that tags one iname. */
export function tagStep(feature: Step['feature'], iname: string, tag: string): Step {
  return { feature, text: `tagInames(knl, { ${iname}: '${tag}' })`, apply: (k) => tagInames(k, { [iname]: tag }) };
}
