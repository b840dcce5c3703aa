/**
 * `cbrng(type, generatorsDim, sampler, { seed })`: counter-based random numbers (Reikna's
 * `CBRNG`). The last `generatorsDim` axes of `randoms` are independent generators, each keyed by
 * its index (keyGenerator); the leading axes are the samples each one draws. `counters` holds
 * each generator's next unused counter (`createCounters()` makes them, zero), and the call
 * advances it past what it used, so that the next call draws new numbers.
 *
 *   const rng = cbrng({ dtype: 'float32', shape: [100, 10000] }, 1, normalBm(philox(64, 4), 'float32'), { seed: 1 });
 *   const run = await rng.compile(device);
 *   const counters = rng.createCounters();
 *   const { randoms } = await run(counters, undefined);   // counters advanced in place
 *
 * Sample call `n` of a generator reads the raw words `n * rawWords ...` of its stream, several
 * calls sharing one bijection where its words suffice (samplers.ts). A call is one kernel, one
 * work-item per generator (as Reikna's): it alone reads its generator's counter, draws the blocks
 * of calls in turn, and writes the counter back advanced. Were the blocks of one generator spread
 * over work-items, the counter's write could not be ordered after the others' reads within one
 * launch, and a second kernel would have to advance it (a launch and a round trip of the counters).
 */
import { globalArg, LoomError, makeKernel, type DType } from '@loom/core';
import { Computation } from '../../computation/computation.ts';
import type { ComputationPlan, KernelArgument } from '../../computation/plan.ts';
import type { DeviceParameters } from '../../computation/device-parameters.ts';
import { spreadOverGrid } from '../parallel.ts';
import { philox, type Bijection } from './bijections.ts';
import { keyGenerator, type KeyGenerator, type Seed } from './key-generator.ts';
import { gamma, normalBm, uniformFloat, uniformInteger, vonmises, type RawWords, type Sampler } from './samplers.ts';
import { counterPlus, type WordDtype } from './words.ts';

type Params = readonly [
  { readonly name: 'counters'; readonly dtype: WordDtype; readonly shape: readonly number[]; readonly role: 'io' },
  { readonly name: 'randoms'; readonly dtype: DType; readonly shape: readonly number[]; readonly role: 'o' },
];

/** The randoms' array: its dtype and shape. */
export interface RandomsType {
  readonly dtype: DType;
  readonly shape: readonly number[];
}

/** The counter-based generator computation (see the file's comment). */
export class CBRNG extends Computation<Params> {
  /** The sampler of the values. */
  readonly sampler: Sampler;
  /** The generators' keys. */
  readonly keys: KeyGenerator;
  /** The generators: the last axes of the randoms' shape. */
  readonly generatorShape: readonly number[];

  constructor(type: RandomsType, generatorsDim: number, sampler: Sampler, options: { readonly seed?: Seed } = {}) {
    for (const k of Object.keys(options))
      if (k !== 'seed') throw new LoomError(`cbrng: unknown option '${k}' (known: seed)`);
    const r = type.shape.length;
    if (!Number.isInteger(generatorsDim) || generatorsDim < 1 || generatorsDim > r)
      throw new LoomError(`cbrng: generatorsDim must be from 1 to the randoms' rank ${r}, got ${generatorsDim}`);
    if (sampler.dtype !== type.dtype)
      throw new LoomError(`cbrng: the sampler gives ${sampler.dtype} values, the randoms are ${type.dtype}`);
    const generatorShape = type.shape.slice(r - generatorsDim);
    const b = sampler.bijection;
    super(
      [
        { name: 'counters', dtype: b.wordDtype, shape: [...generatorShape, b.words], role: 'io' },
        { name: 'randoms', dtype: type.dtype, shape: type.shape, role: 'o' },
      ],
      'cbrng',
    );
    this.sampler = sampler;
    this.keys = keyGenerator(b, options.seed, { reserveIdSpace: true });
    this.generatorShape = generatorShape;
    const generators = generatorShape.reduce((a, n) => a * n, 1);
    if (generators > 2 ** 31) throw new LoomError(`cbrng: at most 2^31 generators, got ${generators}`);
  }

  /** Counters for every generator, zero: the state a first call starts from (a typed array of the word dtype). */
  createCounters(): Uint32Array | BigUint64Array {
    const n = this.generatorShape.reduce((a, m) => a * m, 1) * this.sampler.bijection.words;
    return this.sampler.bijection.wordDtype === 'uint32' ? new Uint32Array(n) : new BigUint64Array(n);
  }

  override buildPlan(plan: ComputationPlan, device: DeviceParameters, ...args: KernelArgument[]): void {
    const [counters, randoms] = args;
    const layout = blockLayout(this.sampler, this.params[1].shape, this.generatorShape);
    const g = layout.generatorShape.map((_, k) => `g${k}`);
    const sample = samplingKernel(this.sampler, this.keys, layout);
    plan.kernelCall(spreadOverGrid(sample, g, layout.generatorShape, device), { counters, randoms });
  }
}

/** How a generator's sample calls are laid over bijection calls: `perBlock` counters give `callsPerBlock` calls. */
interface BlockLayout {
  readonly shape: readonly number[];
  readonly generatorShape: readonly number[];
  readonly counterShape: readonly number[];
  readonly generators: number;
  readonly batch: number;
  readonly counterWords32: number;
  readonly countersPerBlock: number;
  readonly callsPerBlock: number;
  readonly blocks: number;
}

function blockLayout(sampler: Sampler, shape: readonly number[], generatorShape: readonly number[]): BlockLayout {
  const generators = generatorShape.reduce((a, n) => a * n, 1);
  const batch = shape.slice(0, shape.length - generatorShape.length).reduce((a, n) => a * n, 1);
  const { words, bits } = sampler.bijection;
  const counterWords32 = (words * bits) / 32;
  const fits = sampler.rawWords <= counterWords32;
  const countersPerBlock = fits ? 1 : Math.ceil(sampler.rawWords / counterWords32);
  const callsPerBlock = fits ? Math.floor(counterWords32 / sampler.rawWords) : 1;
  const calls = Math.ceil(batch / sampler.randomsPerCall);
  const counterShape = [...generatorShape, words];
  return {
    shape,
    generatorShape,
    counterShape,
    generators,
    batch,
    counterWords32,
    countersPerBlock,
    callsPerBlock,
    blocks: Math.ceil(calls / callsPerBlock),
  };
}

/** The raw words of the bijection outputs `outputs` (one list of words per counter), from word `start` on. */
function rawWords(outputs: readonly (readonly string[])[], bits: 32 | 64, start: number): RawWords {
  const per = bits === 32 ? outputs[0].length : outputs[0].length * 2;
  const word32 = (k: number) => {
    const out = outputs[Math.floor(k / per)];
    const i = k % per;
    // a 64-bit word holds two 32-bit ones, the low half first (Reikna's union, little-endian)
    return bits === 32 ? out[i] : `uint32(${out[i >> 1]} ${i % 2 === 0 ? '& uint64(4294967295)' : '>> 32'})`;
  };
  return {
    uint32: (k) => word32(start + k),
    uint64: (k) => {
      const at = start + k;
      if (bits === 64 && at % 2 === 0) return outputs[Math.floor(at / per)][(at % per) >> 1];
      return `((uint64(${word32(at)}) << 32) | uint64(${word32(at + 1)}))`;
    },
  };
}

/**
 * The kernel drawing the randoms: one work-item per generator, a loop over its blocks of calls
 * (`b`), and the generator's counter read before the loop and written back advanced after it.
 */
function samplingKernel(sampler: Sampler, keys: KeyGenerator, layout: BlockLayout) {
  const b = sampler.bijection;
  const t = b.wordDtype;
  const { batch, countersPerBlock: K, callsPerBlock: P, blocks } = layout;
  const { g, flat, domain } = generatorIndex(layout);
  const at = (w: number) => [...g, w].join(', ');
  const base = Array.from({ length: b.words }, (_, w) => `c${w}`);
  const lines = base.map((c, w) => `<${t}> ${c} = counters[${at(w)}]`);
  const key = keys.expressions(flat);
  const outputs: string[][] = [];
  for (let k = 0; k < K; k++) {
    const counter = counterPlus(base, `b*${K} + ${k}`, t);
    const { code, output } = b.instructions(key, counter, `x${k}`);
    lines.push(code);
    outputs.push([...output]);
  }
  const rpc = sampler.randomsPerCall;
  const guarded = blocks * P * rpc > batch;
  for (let p = 0; p < P; p++) {
    const { code, values } = sampler.code(rawWords(outputs, b.bits, p * sampler.rawWords), `s${p}`);
    if (code) lines.push(code);
    values.forEach((value, v) => {
      const sample = `(b*${P} + ${p})*${rpc} + ${v}`;
      const store = `${randomsAt(layout, sample, g, flat)} = ${value}`;
      lines.push(guarded ? `if ${sample} < ${batch}\n  ${store}\nend` : store);
    });
  }
  // the write reads only the counter's words, so it waits for their reads and for nothing in the loop
  counterPlus(base, `${blocks * K}`, t).forEach((e, w) => lines.push(`counters[${at(w)}] = ${e}`));
  return makeKernel(
    `{ [b, ${g.join(', ')}]: 0 <= b < ${blocks} and ${domain} }`,
    lines.join('\n'),
    [
      globalArg('counters', { dtype: t, shape: layout.counterShape, isInput: true, isOutput: true }),
      globalArg('randoms', { dtype: sampler.dtype, shape: layout.shape, isInput: false, isOutput: true }),
    ],
    { name: 'cbrng_sample' },
  );
}

/**
 * The randoms' element of sample `sample` of generator `g`: indexed by axis where the samples
 * have one axis, flat otherwise (a flat index is divided back into axes, which a store per value
 * pays for in integer divisions).
 */
function randomsAt(layout: BlockLayout, sample: string, g: readonly string[], flat: string): string {
  const sampleAxes = layout.shape.length - layout.generatorShape.length;
  if (sampleAxes === 1) return `randoms[${[sample, ...g].join(', ')}]`;
  return `randoms[[(${sample})*${layout.generators} + ${flat}]]`;
}

/** The generators' inames (one per axis), the flat generator index over them, and their domain. */
function generatorIndex(layout: BlockLayout) {
  const shape = layout.generatorShape;
  const g = shape.map((_, k) => `g${k}`);
  const flat = g.map((name, k) => [name, ...shape.slice(k + 1).map(String)].join('*')).join(' + ');
  const domain = g.map((name, k) => `0 <= ${name} < ${shape[k]}`).join(' and ');
  return { g, flat: `(${flat})`, domain };
}

/** The sampler arguments of each convenience constructor, by name. */
interface ConvenienceArgs {
  uniformInteger: { readonly low: number | bigint; readonly high?: number | bigint };
  uniformFloat: { readonly low?: number; readonly high?: number };
  normalBm: { readonly mean?: number | readonly [number, number]; readonly std?: number };
  gamma: { readonly shape?: number; readonly scale?: number };
  vonmises: { readonly mu?: number; readonly kappa?: number };
}

const SAMPLER_OF: {
  readonly [N in keyof ConvenienceArgs]: (b: Bijection, t: DType, a: ConvenienceArgs[N]) => Sampler;
} = {
  uniformInteger: (b, t, a) => uniformInteger(b, t, a.low, a.high),
  uniformFloat: (b, t, a) => uniformFloat(b, t, a.low, a.high),
  normalBm: (b, t, a) => normalBm(b, t, a.mean, a.std),
  gamma: (b, t, a) => gamma(b, t, a.shape, a.scale),
  vonmises: (b, t, a) => vonmises(b, t, a.mu, a.kappa),
};

type Convenience<N extends keyof ConvenienceArgs> = (
  type: RandomsType,
  generatorsDim: number,
  samplerArgs?: ConvenienceArgs[N],
  options?: { readonly seed?: Seed },
) => CBRNG;

function convenience<N extends keyof ConvenienceArgs>(name: N): Convenience<N> {
  return (type, generatorsDim, samplerArgs = {} as ConvenienceArgs[N], options = {}) =>
    new CBRNG(type, generatorsDim, SAMPLER_OF[name](philox(64, 4), type.dtype, samplerArgs), options);
}

/**
 * The counter-based generator of `type`'s randoms (Reikna's `CBRNG`); `cbrng.normalBm(type,
 * generatorsDim, { mean, std }, { seed })` and the other samplers' constructors use Philox-4x64.
 */
export const cbrng = Object.assign(
  (type: RandomsType, generatorsDim: number, sampler: Sampler, options: { readonly seed?: Seed } = {}): CBRNG =>
    new CBRNG(type, generatorsDim, sampler, options),
  {
    uniformInteger: convenience('uniformInteger'),
    uniformFloat: convenience('uniformFloat'),
    normalBm: convenience('normalBm'),
    gamma: convenience('gamma'),
    vonmises: convenience('vonmises'),
  },
);
