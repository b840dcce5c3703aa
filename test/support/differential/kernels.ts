/**
 * Random kernels and their inputs. A case is a domain (1-D, 2-D, triangular, with or
 * without a reduction iname), a few instructions over arrays a, b, c, d, and inputs
 * drawn from value pools that include the edge values (0, −0, ±1, INT_MIN, NaN, ±Inf,
 * 1e30) when the feature set allows them.
 *
 * Two rules keep the untransformed kernel on the CPU a fair reference:
 *  - a reduction's terms come from pools whose partial sums and products are exact
 *    (small multiples of 1/2, ±0, ±Inf, NaN), so a transformation that reorders the
 *    accumulation (prioritizing k_inner outside k_outer) cannot change a correct result;
 *  - a float division or sqrt is only ever the last operation of an output, so its
 *    allowed error (OpenCL and WGSL permit 2.5 ulp) is not amplified and the case can be
 *    compared within `ulpTolerance` (every other float output must match bit for bit).
 */
import {
  fixParameters,
  globalArg,
  makeKernel,
  splitIname,
  tagInames,
  type DType,
  type HostArray,
  type LoopKernel,
} from '@loom/core';
import type { FeatureSet } from './features.ts';
import { Rng } from './random.ts';
import { ExpressionGenerator, exprToString, leaf, type GenExpr, type Scope } from './expressions.ts';
import { drawTable, sideStream } from './tables.ts';
import type { Step } from './chains.ts';
import { generateLaneCase } from './lanes.ts';
import { generateSegmentCase } from './segments.ts';
import { generateVectorLaneCase } from './vector-lanes.ts';
import { generateAtomicCase } from './atomics.ts';
import { generateAtomicFetchCase } from './atomic-fetches.ts';

/**
 * The kernel's form; `lanes`, `segments`, `atomics` and `atomicFetches` are made by lanes.ts,
 * segments.ts, atomics.ts and atomic-fetches.ts.
 */
export type Shape =
  | 'map1'
  | 'map2'
  | 'tri2'
  | 'reduce'
  | 'reduceTri'
  | 'lanes'
  | 'segments'
  | 'atomics'
  | 'atomicFetches'
  | 'vectorLanes';

export interface KernelCase {
  readonly seed: number;
  readonly dtype: DType;
  readonly shape: Shape;
  readonly domains: string | readonly string[];
  readonly instructions: string;
  /** The input arrays with their shapes (in parameter names); `out` is inferred. */
  readonly arrays: ReadonlyMap<string, readonly string[]>;
  /** The parameters the case runs with (n and m; n and nb for segments; none for lanes). */
  readonly params: Readonly<Record<string, number>>;
  readonly inputs: Readonly<Record<string, HostArray>>;
  readonly hasRule: boolean;
  /** Allowed distance in ulps of float outputs (0: bit for bit). */
  readonly ulpTolerance: number;
  build(): LoopKernel;
  /** The TypeScript that builds the kernel, for a report. */
  readonly source: string;
  /**
   * Steps the case's own family makes (lanes.ts, segments.ts), applied before the generic
   * ones; refused ones are listed like any other.
   */
  readonly plannedSteps?: readonly Step[];
}

const ASSUMPTIONS = 'n >= 1 and m >= 1';

export function generateKernel(seed: number, rng: Rng, features: FeatureSet): KernelCase {
  // the families of issue 24 are chosen from a stream of their own: the other seeds keep their cases
  const family = sideStream(seed, 0x24fa3).next();
  if (features.has('laneTemporaries') && family < 0.1) return generateLaneCase(seed, rng, features);
  if (features.has('dependentDomains') && family >= 0.1 && family < 0.2)
    return generateSegmentCase(seed, rng, features);
  // issue 27's atomics, from a stream of their own too: with the feature left out, every seed keeps its case
  if (features.has('atomicStoresLoads') && sideStream(seed, 0x27a7).next() < 0.08)
    return generateAtomicCase(seed, rng, features);
  // issue 30's atomic fetches, likewise from a stream of their own
  if (features.has('atomicFetches') && sideStream(seed, 0x30af).next() < 0.05)
    return generateAtomicFetchCase(seed, rng, features);
  // vector lanes written by neighbouring work-items (issue 29's OpenCL lane stores), from a stream of its own
  if (features.has('vectorLaneWrites') && sideStream(seed, 0x29ec).next() < 0.06)
    return generateVectorLaneCase(seed, rng, features);
  const dtypes: DType[] = [
    'float32',
    'float32',
    'int32',
    ...(features.has('wideTypes') ? (['float64', 'int64'] as const) : []),
  ];
  let dtype = rng.pick(dtypes);
  // complex cases are drawn from a stream of their own: the other seeds keep the cases they
  // had before complex ones existed (and the fixed seeds of the CI sample their kernels)
  const complexRng = new Rng((seed ^ 0x9e3779b9) >>> 0);
  if (features.has('complex') && complexRng.chance(0.2))
    dtype = features.has('wideTypes') && complexRng.chance(0.5) ? 'complex128' : 'complex64';
  const shapes: Shape[] = ['map1', 'map2'];
  if (features.has('triangular')) shapes.push('tri2');
  if (features.has('reductions')) shapes.push('reduce', 'reduce');
  if (features.has('reductions') && features.has('triangular')) shapes.push('reduceTri');
  const shape = rng.pick(shapes);
  const params = { n: rng.int(1, 9), m: rng.int(1, 9) };
  // a reduction as wide as a subgroup or several, split whole onto l.0 (wideReductions), drawn from a
  // stream of its own: the other seeds keep their cases and chains
  const wideRng = sideStream(seed, 0x51de5);
  const wideSplit =
    features.has('wideReductions') && shape === 'reduce' && wideRng.chance(0.3)
      ? wideRng.pick([8, 16, 32, 64])
      : undefined;
  if (wideSplit) params.m = wideSplit * wideRng.pick([1, 1, 2]);
  const wideSteps = wideSplit ? wideReductionSteps(wideRng, wideSplit, params.m) : undefined;
  const gen = new ExpressionGenerator(rng, features, dtype);
  const table = drawTable(seed, features, dtype);

  const outer = shape === 'map1' ? ['i'] : shape === 'map2' || shape === 'tri2' ? ['i', 'j'] : ['i'];
  const reduction = shape === 'reduce' || shape === 'reduceTri';
  const triangular = shape === 'tri2' || shape === 'reduceTri';
  const second = reduction ? 'k' : 'j';
  const domains: string | string[] =
    shape === 'map1'
      ? '{ [i]: 0<=i<n }'
      : triangular
        ? rng.chance(0.5)
          ? `{ [i,${second}]: 0<=i<n and 0<=${second}<=i }`
          : ['{ [i]: 0<=i<n }', `{ [${second}]: 0<=${second}<=i }`]
        : `{ [i,${second}]: 0<=i<n and 0<=${second}<m }`;
  const wide = shape === 'map1' ? ['n'] : triangular ? ['n', 'n'] : ['n', 'm'];
  const index = shape === 'map1' ? ['i'] : ['i', second];

  const lines: string[] = [];
  const arrays = new Map<string, readonly string[]>();
  const use = (name: string, dims: readonly string[]) => arrays.set(name, dims);

  // a substitution rule over the element arrays, called at the kernel's own indices
  let ruleCall: GenExpr | undefined;
  if (features.has('rules') && rng.chance(0.3)) {
    const formals = index.map((_, k) => ['x', 'y'][k]);
    const body = gen.expr(2, {
      index: formals,
      inames: formals,
      arrays: ['a', 'b'],
      reduction: reduction ? 'sum' : undefined,
      extra: [],
    });
    lines.push(`f(${formals.join(', ')}) := ${exprToString(body)}`);
    ruleCall = leaf(`f(${index.join(', ')})`);
    // issue 27 (rules): a rule that calls f, whose precompute keeps f for a later one
    if (features.has('nestedRules') && rng.chance(0.7)) {
      const outerBody = gen.expr(1, {
        index: formals,
        inames: formals,
        arrays: ['a', 'b'],
        extra: [leaf(`f(${formals.join(', ')})`)],
      });
      lines.push(`g(${formals.join(', ')}) := ${exprToString(outerBody)}`);
      ruleCall = leaf(`g(${index.join(', ')})`);
    }
  }

  const elementScope: Scope = {
    index,
    inames: [...outer, ...(reduction ? ['k'] : [])],
    arrays: ['a', 'b'],
    divisor: 'd',
    extra: ruleCall ? [ruleCall] : [],
  };
  let outputExpr: (scope: Scope) => GenExpr;
  if (reduction && features.has('argmax') && gen.comparesData && rng.chance(0.3)) {
    // value and index of the extreme, into two temporaries; the output uses both
    const op = rng.pick(['argmax', 'argmin']);
    const body = gen.reductionBody('max', { ...elementScope, reduction: 'max' });
    lines.push(`<> v, <> at = ${op}(k, ${exprToString(body)}, k)`);
    const both = gen.around(leaf('v'), leaf(`${dtype}(at)`));
    const outerScope: Scope = { index: ['i'], inames: ['i'], arrays: ['c'], extra: [] };
    outputExpr = () => both;
    use('c', ['n']);
    return finish(outerScope);
  }
  if (reduction) {
    // the reduction is one leaf of the output expression, which also reads c[i]
    const op = gen.reductionOp();
    const body = gen.reductionBody(op, { ...elementScope, reduction: op });
    let red = leaf(`${op}(k, ${exprToString(body)})`);
    if (features.has('temporaries') && rng.chance(0.4)) {
      lines.push(`<> s = ${exprToString(red)}`);
      red = leaf('s');
    }
    // outside the reduction only c[i] and literals are read: d is indexed by [i, k]
    const outerScope: Scope = { index: ['i'], inames: ['i'], arrays: ['c'], extra: [] };
    outputExpr = (scope) => gen.around(red, gen.expr(2, scope));
    use('c', ['n']);
    return finish(outerScope);
  }
  outputExpr = (scope) => gen.expr(3, scope);
  if (features.has('temporaries') && rng.chance(0.4)) {
    lines.push(`<> t = ${exprToString(gen.expr(2, elementScope))}`);
    const t = leaf('t');
    outputExpr = (scope) => gen.around(t, gen.expr(3, scope));
  }
  return finish(elementScope);

  function finish(scope: Scope): KernelCase {
    const outIndex = reduction ? '[i]' : `[${index.join(', ')}]`;
    const top = () => gen.top(table ? gen.around(leaf(table.read), outputExpr(scope)) : outputExpr(scope), scope);
    if (features.has('conditionals') && rng.chance(0.25)) {
      lines.push(
        `if ${exprToString(gen.condition(scope, true))}`,
        `  out${outIndex} = ${exprToString(top())}`,
        'else',
        `  out${outIndex} = ${exprToString(top())}`,
        'end',
      );
    } else {
      lines.push(`out${outIndex} = ${exprToString(top())}`);
    }
    const instructions = lines.join('\n');
    for (const name of ['a', 'b', 'd', 'c']) {
      if (name !== 'c' && new RegExp(`\\b${name}\\[`).test(instructions)) use(name, wide);
    }
    if (!/\bc\[/.test(instructions)) arrays.delete('c');
    const inputs = Object.fromEntries(
      [...arrays].map(([name, dims]) => {
        const size = dims.reduce((p, d) => p * params[d as 'n' | 'm'], 1);
        return [name, gen.values(name === 'd' ? 'divisor' : name === 'c' || !reduction ? 'full' : 'reduction', size)];
      }),
    );
    const argSpecs = [
      ...[...arrays].map(([name, dims]) => globalArg(name, { shape: dims, dtype })),
      ...(table ? [table.spec] : []),
    ];
    const argText = [
      ...[...arrays].map(
        ([name, dims]) => `globalArg('${name}', { shape: ${JSON.stringify(dims)}, dtype: '${dtype}' })`,
      ),
      ...(table ? [table.source] : []),
    ];
    const source = `makeKernel(${JSON.stringify(domains)}, \`\n${instructions}\n\`, [${[...argText, "'...'"].join(', ')}], { assumptions: '${ASSUMPTIONS}' })`;
    return {
      seed,
      dtype,
      shape,
      domains,
      instructions,
      arrays,
      params,
      inputs,
      source,
      hasRule: ruleCall !== undefined,
      ulpTolerance: gen.usedInexact ? 3 : 0,
      build: () => makeKernel(domains, instructions, [...argSpecs, '...'], { assumptions: ASSUMPTIONS }),
      ...(wideSteps ? { plannedSteps: wideSteps } : {}),
    };
  }
}

/**
 * The reduction iname k split by `width` onto l.0 (its inner part the whole work-group, where no
 * later step adds another local axis), the rows on g.0 or left a loop around it; mostly with the
 * reduction's length `m` fixed first, so that no guard stands between the work-items and their
 * subgroups (a guarded reduction takes the tree in local memory).
 */
function wideReductionSteps(rng: Rng, width: number, m: number): Step[] {
  const steps: Step[] = [];
  if (rng.chance(0.7))
    steps.push({
      feature: 'wideReductions',
      text: `fixParameters(knl, { m: ${m} })`,
      apply: (k) => fixParameters(k, { m }),
    });
  steps.push({
    feature: 'wideReductions',
    text: `splitIname(knl, 'k', ${width}, { innerTag: 'l.0' })`,
    apply: (k) => splitIname(k, 'k', width, { innerTag: 'l.0' }),
  });
  if (rng.chance(0.6))
    steps.push({
      feature: 'wideReductions',
      text: "tagInames(knl, { i: 'g.0' })",
      apply: (k) => tagInames(k, { i: 'g.0' }),
    });
  return steps;
}
