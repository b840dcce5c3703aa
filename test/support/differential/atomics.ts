/**
 * Atomic stores and loads (issue 27's atomics group, `atomicStoresLoads`): loopy's
 * `atomic=init` and reads of `forAtomic` variables, in two forms whose result does not depend
 * on the order work-items run in, so the untransformed kernel on the CPU is a fair reference:
 *  - `init`: every i stores f(a[i % B]) into out[i % B] with `atomic=init`: the work-items that
 *    share an element store the same value;
 *  - `counter`: loopy's test_atomic_load with data: a local `forAtomic` counter that every
 *    work-item of the group zeroes (atomically), bumps by a[j] (an atomic update) and reads
 *    back (an atomic load) into out[j] = g(counter, b[j]), stored atomically. a comes from
 *    the reduction pool, whose sums are exact in any order.
 * The chain splits i across work-groups and work-items (init), or leaves j on l.0 (counter:
 * the counter is the group's); then a few generic steps.
 */
import { fixParameters, globalArg, makeKernel, splitIname, tagInames, temporaryVariable, type DType } from '@loom/core';
import type { Step } from './chains.ts';
import { ExpressionGenerator, exprToString, leaf, type Scope } from './expressions.ts';
import type { FeatureSet } from './features.ts';
import type { KernelCase } from './kernels.ts';
import type { Rng } from './random.ts';

export function generateAtomicCase(seed: number, rng: Rng, features: FeatureSet): KernelCase {
  // the dtypes every target has atomics of
  const dtype: DType = rng.pick(['int32', 'float32']);
  const gen = new ExpressionGenerator(rng, features, dtype);
  return rng.chance(0.5) ? initCase(seed, rng, gen, dtype) : counterCase(seed, rng, gen, dtype);
}

function initCase(seed: number, rng: Rng, gen: ExpressionGenerator, dtype: DType): KernelCase {
  const B = rng.int(1, 6);
  // every element is stored at least once
  const n = rng.int(B, 40);
  const element = leaf(`a[i % ${B}]`);
  // only values of i % B: the work-items that share an element compute the same value
  const scope: Scope = { index: [`i % ${B}`], inames: [`(i % ${B})`], arrays: ['a'], extra: [element] };
  const value = gen.top(gen.around(element, gen.expr(2, scope)), scope);
  const domain = '{ [i]: 0<=i<n }';
  const instructions = `out[i % ${B}] = ${exprToString(value)} {id=init, atomic=init}`;
  const options = { silencedWarnings: ['write_race(init)'] };
  const args = () => [
    globalArg('a', { shape: [B], dtype }),
    globalArg('out', { shape: [B], dtype, forAtomic: true }),
    '...' as const,
  ];
  const factor = rng.int(1, 8);
  const split = { outerTag: 'g.0', innerTag: 'l.0' };
  return {
    seed,
    dtype,
    shape: 'atomics',
    domains: domain,
    instructions,
    arrays: new Map([['a', [String(B)]]]),
    params: { n },
    inputs: { a: gen.values('full', B) },
    hasRule: false,
    ulpTolerance: gen.usedInexact ? 3 : 0,
    source: `makeKernel(${JSON.stringify(domain)}, \`\n${instructions}\n\`, [globalArg('a', { shape: [${B}], dtype: '${dtype}' }), globalArg('out', { shape: [${B}], dtype: '${dtype}', forAtomic: true }), '...'], ${JSON.stringify(options)})`,
    build: () => makeKernel(domain, instructions, args(), options),
    plannedSteps: [
      {
        feature: 'atomicStoresLoads',
        text: `splitIname(knl, 'i', ${factor}, ${JSON.stringify(split)})`,
        apply: (k) => splitIname(k, 'i', factor, split),
      },
    ],
  };
}

function counterCase(seed: number, rng: Rng, gen: ExpressionGenerator, dtype: DType): KernelCase {
  const J = rng.int(1, 16);
  const counter = leaf('temp');
  const scope: Scope = { index: ['j'], inames: ['j'], arrays: ['b'], extra: [counter] };
  const value = gen.top(gen.around(counter, gen.expr(2, scope)), scope);
  const zero = rng.pick(['atomic', 'atomic=init']);
  const domain = '{ [j]: 0<=j<n }';
  const instructions = [
    'for j',
    `  temp = 0 {id=init, ${zero}}`,
    '  ... lbarrier {id=lb1, dep=init}',
    '  temp = temp + a[j] {id=bump, dep=lb1, atomic}',
    '  ... lbarrier {id=lb2, dep=bump}',
    `  out[j] = ${exprToString(value)} {id=final, dep=lb2, atomic=init, nosync=init:bump}`,
    'end',
  ].join('\n');
  const options = { silencedWarnings: ['write_race(init)', 'write_race(bump)'] };
  const args = () => [
    globalArg('a', { shape: [J], dtype }),
    ...(/\bb\[/.test(instructions) ? [globalArg('b', { shape: [J], dtype })] : []),
    globalArg('out', { shape: [J], dtype, forAtomic: true }),
    temporaryVariable('temp', { dtype, forAtomic: true, addressSpace: 'local' }),
    '...' as const,
  ];
  const arrays = new Map<string, readonly string[]>([['a', [String(J)]]]);
  if (/\bb\[/.test(instructions)) arrays.set('b', [String(J)]);
  const argText = [
    ...[...arrays.keys()].map((name) => `globalArg('${name}', { shape: [${J}], dtype: '${dtype}' })`),
    `globalArg('out', { shape: [${J}], dtype: '${dtype}', forAtomic: true })`,
    `temporaryVariable('temp', { dtype: '${dtype}', forAtomic: true, addressSpace: 'local' })`,
    "'...'",
  ];
  return {
    seed,
    dtype,
    shape: 'atomics',
    domains: domain,
    instructions,
    arrays,
    params: {},
    inputs: Object.fromEntries(
      [...arrays.keys()].map((name) => [name, gen.values(name === 'a' ? 'reduction' : 'full', J)]),
    ),
    hasRule: false,
    ulpTolerance: gen.usedInexact ? 3 : 0,
    source: `tagInames(fixParameters(makeKernel(${JSON.stringify(domain)}, \`\n${instructions}\n\`, [${argText.join(', ')}], ${JSON.stringify(options)}), { n: ${J} }), { j: 'l.0' })`,
    // the counter is the work-group's: j is on work-items from the start, in the reference too
    build: () => tagInames(fixParameters(makeKernel(domain, instructions, args(), options), { n: J }), { j: 'l.0' }),
    plannedSteps: [] satisfies Step[],
  };
}
