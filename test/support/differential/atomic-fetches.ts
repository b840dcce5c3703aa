/**
 * Atomic fetches (issue 30, `atomicFetches`; with `globalFences`, a `... gfence` among them):
 * kernels whose work-items each make one fetch, in forms whose `out` does not depend on the
 * order the work-items run in, so the untransformed kernel on the CPU is a fair reference:
 *  - `tickets`: each i takes a ticket t = atomicAdd(counter[0], 1) (or counts down with
 *    atomicSub from n) and writes out[t] = f(t, b[t]): every ticket is taken once, whoever takes
 *    it, so out is f over 0..n-1;
 *  - `claims`: each i tries to claim slot i % S with atomicCompareExchange(slots[i % S], 0, 1)
 *    and adds (or ors) 1 into out[i % S] (an `{atomic}` update) where it saw the slot free: one claim
 *    a slot. The or is an update no C-family target has an instruction for: their compare-and-swap loop.
 * The fetches are of int32, which every target with fetches has (WGSL's atomics hold i32 and
 * u32). The chain splits i across work-groups and work-items; then a few generic steps.
 */
import { globalArg, makeKernel, splitIname, type DType } from '@loom/core';
import { ExpressionGenerator, exprToString, leaf, type Scope } from './expressions.ts';
import type { FeatureSet } from './features.ts';
import type { KernelCase } from './kernels.ts';
import type { Rng } from './random.ts';
import { sideStream } from './tables.ts';

export function generateAtomicFetchCase(seed: number, rng: Rng, features: FeatureSet): KernelCase {
  const dtype: DType = 'int32';
  const gen = new ExpressionGenerator(rng, features, dtype);
  // the fence is drawn from a stream of its own: a device that cannot fence (WGSL, limitsOf) gets
  // the same seed's case without it
  const fence = features.has('globalFences') && sideStream(seed, 0x30fe).chance(0.5);
  return rng.chance(0.6) ? ticketCase(seed, rng, gen, fence) : claimCase(seed, rng, fence);
}

function ticketCase(seed: number, rng: Rng, gen: ExpressionGenerator, fence: boolean): KernelCase {
  const n = rng.int(1, 48);
  const down = rng.chance(0.4);
  // the ticket as an index 0..n-1: counting up from 0, or down from n (n..1, less one)
  const ticket = down ? '(t - 1)' : 't';
  const scope: Scope = { index: [ticket], inames: [ticket], arrays: ['b'], extra: [leaf(ticket)] };
  const value = gen.top(gen.around(leaf(ticket), gen.expr(2, scope)), scope);
  const domain = '{ [i]: 0<=i<n }';
  const instructions = [
    `<int32> t = ${down ? 'atomicSub' : 'atomicAdd'}(counter[0], 1) {id=fetch, inames=i}`,
    ...(fence ? ['... gfence {id=fence, dep=fetch, inames=i}'] : []),
    `out[${ticket}] = ${exprToString(value)} {id=write, dep=${fence ? 'fence' : 'fetch'}, inames=i}`,
  ].join('\n');
  const usesB = /\bb\[/.test(instructions);
  const args = () => [
    globalArg('counter', { shape: [1], dtype: 'int32', forAtomic: true }),
    ...(usesB ? [globalArg('b', { shape: [n], dtype: 'int32' })] : []),
    globalArg('out', { shape: [n], dtype: 'int32' }),
    '...' as const,
  ];
  const arrays = new Map<string, readonly string[]>(usesB ? [['b', [String(n)]]] : []);
  const argText = [
    "globalArg('counter', { shape: [1], dtype: 'int32', forAtomic: true })",
    ...(usesB ? [`globalArg('b', { shape: [${n}], dtype: 'int32' })`] : []),
    `globalArg('out', { shape: [${n}], dtype: 'int32' })`,
    "'...'",
  ];
  return fetchCase(seed, rng, {
    domain,
    instructions,
    arrays,
    n,
    inputs: () => ({
      counter: Int32Array.of(down ? n : 0),
      ...(usesB ? { b: gen.values('full', n) } : {}),
    }),
    argText,
    args,
  });
}

function claimCase(seed: number, rng: Rng, fence: boolean): KernelCase {
  // the count added (an atomic add) or or'ed in (an update of another form: a compare-and-swap loop
  // where the target has no instruction for it), from a stream of its own: every seed keeps its draws
  const or = sideStream(seed, 0x0c1a).chance(0.5);
  const S = rng.int(1, 6);
  // every slot is tried at least once
  const n = rng.int(S, 40);
  const domain = '{ [i]: 0<=i<n }';
  const instructions = [
    `<int32> seen = atomicCompareExchange(slots[i % ${S}], 0, 1) {id=claim, inames=i}`,
    ...(fence ? ['... gfence {id=fence, dep=claim, inames=i}'] : []),
    `out[i % ${S}] = out[i % ${S}] ${or ? '|' : '+'} if(seen == 0, 1, 0) {id=count, dep=${fence ? 'fence' : 'claim'}, atomic, inames=i}`,
  ].join('\n');
  const args = () => [
    globalArg('slots', { shape: [S], dtype: 'int32', forAtomic: true }),
    globalArg('out', { shape: [S], dtype: 'int32', forAtomic: true }),
    '...' as const,
  ];
  return fetchCase(seed, rng, {
    domain,
    instructions,
    arrays: new Map(),
    n,
    // the slots start free, the claims at 0
    inputs: () => ({ slots: new Int32Array(S), out: new Int32Array(S) }),
    argText: [
      `globalArg('slots', { shape: [${S}], dtype: 'int32', forAtomic: true })`,
      `globalArg('out', { shape: [${S}], dtype: 'int32', forAtomic: true })`,
      "'...'",
    ],
    args,
  });
}

/** What a case of either form is besides its kernel: int32, no rule, exact; i split across work-groups and work-items. */
function fetchCase(
  seed: number,
  rng: Rng,
  c: {
    readonly domain: string;
    readonly instructions: string;
    readonly arrays: ReadonlyMap<string, readonly string[]>;
    readonly n: number;
    /** Made after the split's factor is drawn (b's values come from the same stream). */
    readonly inputs: () => KernelCase['inputs'];
    readonly argText: readonly string[];
    readonly args: () => Parameters<typeof makeKernel>[2];
  },
): KernelCase {
  const factor = rng.int(1, 8);
  const split = { outerTag: 'g.0', innerTag: 'l.0' };
  return {
    seed,
    dtype: 'int32',
    shape: 'atomicFetches',
    domains: c.domain,
    instructions: c.instructions,
    arrays: c.arrays,
    params: { n: c.n },
    inputs: c.inputs(),
    hasRule: false,
    ulpTolerance: 0,
    source: `makeKernel(${JSON.stringify(c.domain)}, \`\n${c.instructions}\n\`, [${c.argText.join(', ')}])`,
    build: () => makeKernel(c.domain, c.instructions, c.args()),
    plannedSteps: [
      {
        feature: 'atomicFetches',
        text: `splitIname(knl, 'i', ${factor}, ${JSON.stringify(split)})`,
        apply: (k) => splitIname(k, 'i', factor, split),
      },
    ],
  };
}
