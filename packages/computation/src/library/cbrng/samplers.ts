/**
 * Samplers of distributions from a bijection's raw words (Reikna's `cbrng.samplers`): uniform
 * integers and floats, normal values by Box–Muller (real, or complex), gamma (Marsaglia and
 * Tsang) and von Mises (Best and Fisher). A sampler is Loom kernel text: instructions that turn
 * the raw words of one call into `randomsPerCall` values.
 *
 * Every call reads a fixed number of raw 32-bit words (`rawWords`), so that each call's words
 * sit at a fixed place in the generator's stream (no call waits on the one before). A rejection sampler
 * (gamma, von Mises, a uniform integer over a range that does not divide 2^32) tries a fixed
 * number of candidates, each from words of its own, and keeps the first accepted; the number is
 * chosen so that none is accepted with a probability below 2^-40 per value (then the last
 * candidate is kept), from the method's acceptance probability for the sampler's parameters.
 * Reikna loops until one is accepted; the distributions are the same.
 *
 *   const s = normalBm(philox(64, 4), 'float32', 0, 1);   // two normal values per call, from 2 words
 */
import { isComplex, LoomError, type DType } from '@loom/core';
import type { Bijection } from './bijections.ts';
import { wordConstant } from './words.ts';

/** The raw words of one call: 32-bit word `k`, and the 64-bit value of words `k` and `k + 1` (`k` even). */
export interface RawWords {
  /** Raw 32-bit word `k` of the call, as a uint32 expression. */
  uint32(k: number): string;
  /** Raw words `k` and `k + 1` as one uint64 expression (`k` even). */
  uint64(k: number): string;
}

/** A sampler (see the file's comment). */
export interface Sampler {
  /** The distribution. */
  readonly name: 'uniformInteger' | 'uniformFloat' | 'normalBm' | 'gamma' | 'vonmises';
  /** The bijection whose words it reads. */
  readonly bijection: Bijection;
  /** The dtype of a value. */
  readonly dtype: DType;
  /** The values one call gives. */
  readonly randomsPerCall: number;
  /** Whether every candidate is accepted (no rejection): Reikna's `deterministic`. */
  readonly deterministic: boolean;
  /** The raw 32-bit words one call reads (even where it reads 64-bit values). */
  readonly rawWords: number;
  /** Instructions computing one call's values from its raw words; temporaries start with `prefix`. */
  code(raw: RawWords, prefix: string): { readonly code: string; readonly values: readonly string[] };
}

/** Candidates of a rejection sampler whose candidate is accepted with probability at least `p`. */
function attemptsFor(p: number): number {
  if (p >= 1) return 1;
  return Math.min(64, Math.max(2, Math.ceil(-40 / Math.log2(1 - p))));
}

/** The midpoint rule's integral of `f` over [a, b] (smooth, bounded integrands: 4096 points err below 1e-6). */
function integral(f: (x: number) => number, a: number, b: number): number {
  const n = 4096;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += f(a + ((b - a) * (i + 0.5)) / n);
  return (sum * (b - a)) / n;
}

/**
 * The probability that a candidate of Marsaglia and Tsang's gamma method is accepted: over the
 * normal X, V = (1 + cX)^3 > 0 and U below exp(X^2/2 + d(1 - V + log V)) (the squeeze only saves work).
 */
function gammaAcceptance(d: number, c: number): number {
  return integral(
    (x) => {
      const v1 = 1 + c * x;
      if (v1 <= 0) return 0;
      const v = v1 ** 3;
      return (
        (Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI)) *
        Math.min(1, Math.exp(0.5 * x * x + d * (1 - v + Math.log(v))))
      );
    },
    -12,
    12,
  );
}

/** The probability that a candidate of Best and Fisher's von Mises method is accepted: U2 below c e^(1 - c). */
function vonmisesAcceptance(kappa: number, r: number): number {
  return integral(
    (u) => {
      const z = Math.cos(Math.PI * u);
      const c = kappa * (r - (1 + r * z) / (r + z));
      return c > 0 ? Math.min(1, c * Math.exp(1 - c)) : 0;
    },
    0,
    1,
  );
}

/** A float literal of dtype `t` (float32 or float64): exact in it. */
function lit(x: number, t: DType): string {
  const s = Number.isInteger(x) ? `${x}.0` : `${x}`;
  return `${s.includes('e') && !s.includes('.') ? s.replace('e', '.0e') : s}${t === 'float32' ? 'f' : 'd'}`;
}

const REAL = new Set<DType>(['float32', 'float64']);
const INTEGER_RANGE: Readonly<Partial<Record<DType, readonly [bigint, bigint]>>> = {
  int8: [-(2n ** 7n), 2n ** 7n],
  int16: [-(2n ** 15n), 2n ** 15n],
  int32: [-(2n ** 31n), 2n ** 31n],
  int64: [-(2n ** 63n), 2n ** 63n],
  uint8: [0n, 2n ** 8n],
  uint16: [0n, 2n ** 16n],
  uint32: [0n, 2n ** 32n],
  uint64: [0n, 2n ** 64n],
};

/**
 * Integers uniform in [low, high) (Reikna's `uniform_integer`; with `high` left out, [0, low]).
 * Any integer dtype; a range of up to 2^32 values reads one 32-bit word per candidate, a wider one 64 bits.
 */
export function uniformInteger(
  bijection: Bijection,
  dtype: DType,
  low: number | bigint,
  high?: number | bigint,
): Sampler {
  let lo = BigInt(low);
  let hi: bigint;
  if (high === undefined) {
    hi = lo + 1n;
    lo = 0n;
  } else {
    hi = BigInt(high);
    if (lo >= hi - 1n) throw new LoomError('uniformInteger: low must be less than high - 1');
  }
  const range = INTEGER_RANGE[dtype];
  if (!range) throw new LoomError(`uniformInteger: ${dtype} is not an integer dtype`);
  if (lo < range[0] || hi > range[1])
    throw new LoomError(`uniformInteger: [${lo}, ${hi}) does not fit ${dtype} ([${range[0]}, ${range[1]}))`);
  const num = hi - lo;
  const wide = num > 2n ** 32n;
  const rawDtype = wide ? 'uint64' : 'uint32';
  const maxNum = wide ? 2n ** 64n : 2n ** 32n;
  const accepted = maxNum - (maxNum % num);
  const deterministic = maxNum % num === 0n;
  const attempts = attemptsFor(Number(accepted) / Number(maxNum));
  const step = wide ? 2 : 1;
  const divisor = wordConstant(maxNum / num, rawDtype);
  const offset = lo === 0n ? '' : ` + ${dtype}(${lo})`;
  return Object.freeze({
    name: 'uniformInteger' as const,
    bijection,
    dtype,
    randomsPerCall: 1,
    deterministic,
    rawWords: attempts * step,
    code(raw: RawWords, prefix: string) {
      const draw = (a: number) => (wide ? raw.uint64(a * step) : raw.uint32(a * step));
      if (attempts === 1) return { code: '', values: [`${dtype}(${draw(0)} // ${divisor})${offset}`] };
      // the first candidate below the largest multiple of the range that fits, else the last
      const t = Array.from({ length: attempts }, (_, a) => `${prefix}_t${a}`);
      const lines = t.map((name, a) => `<${rawDtype}> ${name} = ${draw(a)}`);
      let chosen = t[attempts - 1];
      for (let a = attempts - 2; a >= 0; a--)
        chosen = `if(${t[a]} < ${wordConstant(accepted, rawDtype)}, ${t[a]}, ${chosen})`;
      return { code: lines.join('\n'), values: [`${dtype}((${chosen}) // ${divisor})${offset}`] };
    },
  });
}

/** A uniform float in [0, 1] from raw word `k` (2^-32 or 2^-64 times a whole word). */
function unit(raw: RawWords, k: number, t: DType): string {
  return t === 'float64'
    ? `float64(${raw.uint64(k)}) * ${lit(2 ** -64, t)}`
    : `float32(${raw.uint32(k)}) * ${lit(2 ** -32, t)}`;
}
const unitWords = (t: DType) => (t === 'float64' ? 2 : 1);

function checkReal(what: string, dtype: DType): void {
  if (!REAL.has(dtype)) throw new LoomError(`${what}: the dtype must be float32 or float64, not ${dtype}`);
}

/** Floats uniform in [low, high) (Reikna's `uniform_float`): float32 or float64. */
export function uniformFloat(bijection: Bijection, dtype: DType, low = 0, high = 1): Sampler {
  checkReal('uniformFloat', dtype);
  if (!(low < high)) throw new LoomError('uniformFloat: low must be less than high');
  return Object.freeze({
    name: 'uniformFloat' as const,
    bijection,
    dtype,
    randomsPerCall: 1,
    deterministic: true,
    rawWords: unitWords(dtype),
    code: (raw: RawWords) => ({
      code: '',
      values: [`(${unit(raw, 0, dtype)}) * ${lit(high - low, dtype)} + ${lit(low, dtype)}`],
    }),
  });
}

/**
 * Normal values of mean `mean` and standard deviation `std` by Box–Muller (Reikna's
 * `normal_bm`): two per call for float32/float64, one for complex64/complex128, whose `std` is
 * the complex value's (each part has std / sqrt(2)) and whose mean is `[re, im]`.
 */
export function normalBm(
  bijection: Bijection,
  dtype: DType,
  mean: number | readonly [number, number] = 0,
  std = 1,
): Sampler {
  const complex = isComplex(dtype);
  const real: DType = dtype === 'complex64' ? 'float32' : dtype === 'complex128' ? 'float64' : dtype;
  checkReal('normalBm', real);
  const [re, im] = typeof mean === 'number' ? [mean, 0] : mean;
  if (!complex && im !== 0) throw new LoomError('normalBm: a complex mean needs a complex dtype');
  const sigma = complex ? std / Math.SQRT2 : std;
  const w = unitWords(real);
  return Object.freeze({
    name: 'normalBm' as const,
    bijection,
    dtype,
    randomsPerCall: complex ? 1 : 2,
    deterministic: true,
    rawWords: 2 * w,
    code(raw: RawWords, prefix: string) {
      const [x, y] = boxMuller(raw, 0, real, prefix, sigma);
      const code = x.code;
      const parts = [`${x.value} + ${lit(re, real)}`, `${y} + ${lit(im === 0 && !complex ? re : im, real)}`];
      return { code, values: complex ? [`(${parts[0]}) + 1j * (${parts[1]})`] : parts };
    },
  });
}

/** Two normal values of standard deviation `sigma` from the words at `k` (Box–Muller). */
function boxMuller(raw: RawWords, k: number, t: DType, prefix: string, sigma: number) {
  const r = `${prefix}_r`;
  const a = `${prefix}_a`;
  const code = [
    // times 1 is exact, and left out (it need not be folded by every compiler)
    `<${t}> ${r} = sqrt(${lit(-2, t)} * log(${unit(raw, k, t)}))${sigma === 1 ? '' : ` * ${lit(sigma, t)}`}`,
    `<${t}> ${a} = ${lit(2 * Math.PI, t)} * (${unit(raw, k + unitWords(t), t)})`,
  ].join('\n');
  return [{ code, value: `${r} * cos(${a})` }, `${r} * sin(${a})`] as const;
}

/**
 * Gamma values of shape `k` and scale `theta` (Reikna's `gamma`, Marsaglia and Tsang's method):
 * float32 or float64. Each candidate reads a normal value (two uniform words) and one uniform word.
 */
export function gamma(bijection: Bijection, dtype: DType, shape = 1, scale = 1): Sampler {
  checkReal('gamma', dtype);
  if (!(shape >= 1 / 3 + 1e-9) || !(scale > 0))
    throw new LoomError('gamma: the shape must be above 1/3 (the method needs shape - 1/3 > 0), the scale positive');
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  const w = unitWords(dtype);
  // the integral's error is far below the margin taken off
  const attempts = attemptsFor(gammaAcceptance(d, c) - 1e-3);
  const perAttempt = 3 * w;
  return Object.freeze({
    name: 'gamma' as const,
    bijection,
    dtype,
    randomsPerCall: 1,
    deterministic: false,
    rawWords: attempts * perAttempt,
    code(raw: RawWords, prefix: string) {
      const lines: string[] = [];
      const candidates: { ok: string; value: string }[] = [];
      const f = (x: number) => lit(x, dtype);
      for (let a = 0; a < attempts; a++) {
        const p = `${prefix}_${a}`;
        const [x] = boxMuller(raw, a * perAttempt, dtype, p, 1);
        lines.push(x.code, `<${dtype}> ${p}_x = ${x.value}`, `<${dtype}> ${p}_v1 = ${f(1)} + ${f(c)} * ${p}_x`);
        lines.push(`<${dtype}> ${p}_v = ${p}_v1 * ${p}_v1 * ${p}_v1`);
        lines.push(`<${dtype}> ${p}_u = ${unit(raw, a * perAttempt + 2 * w, dtype)}`);
        const x2 = `${p}_x * ${p}_x`;
        const ok =
          `${p}_v1 > ${f(0)} and (${p}_u < ${f(1)} - ${f(0.0331)} * (${x2}) * (${x2}) or ` +
          `log(${p}_u) < ${f(0.5)} * ${x2} + ${f(d)} * (${f(1)} - ${p}_v + log(${p}_v)))`;
        lines.push(`<bool> ${p}_ok = ${ok}`);
        candidates.push({ ok: `${p}_ok`, value: `${f(d)} * ${p}_v * ${f(scale)}` });
      }
      return { code: lines.join('\n'), values: [firstAccepted(candidates)] };
    },
  });
}

/**
 * Von Mises values of mode `mu` and concentration `kappa` in [-pi, pi) (Reikna's `vonmises`,
 * Best and Fisher's rejection method): float32 or float64.
 */
export function vonmises(bijection: Bijection, dtype: DType, mu = 0, kappa = 1): Sampler {
  checkReal('vonmises', dtype);
  if (!(kappa > 0)) throw new LoomError('vonmises: kappa must be positive');
  const tau = 1 + Math.sqrt(1 + 4 * kappa * kappa);
  const rho = (tau - Math.sqrt(2 * tau)) / (2 * kappa);
  const r = (1 + rho * rho) / (2 * rho);
  const w = unitWords(dtype);
  // from 66% (large kappa) to all candidates (small kappa); the integral's error is far below the margin
  const attempts = attemptsFor(vonmisesAcceptance(kappa, r) - 1e-3);
  return Object.freeze({
    name: 'vonmises' as const,
    bijection,
    dtype,
    randomsPerCall: 1,
    deterministic: false,
    rawWords: (2 * attempts + 1) * w,
    code(raw: RawWords, prefix: string) {
      const f = (x: number) => lit(x, dtype);
      const lines: string[] = [];
      const candidates: { ok: string; value: string }[] = [];
      for (let a = 0; a < attempts; a++) {
        const p = `${prefix}_${a}`;
        lines.push(
          `<${dtype}> ${p}_z = cos(${f(Math.PI)} * (${unit(raw, 2 * a * w, dtype)}))`,
          `<${dtype}> ${p}_f = (${f(1)} + ${f(r)} * ${p}_z) / (${f(r)} + ${p}_z)`,
          `<${dtype}> ${p}_c = ${f(kappa)} * (${f(r)} - ${p}_f)`,
          `<${dtype}> ${p}_u = ${unit(raw, (2 * a + 1) * w, dtype)}`,
          `<bool> ${p}_ok = ${p}_u < ${p}_c * (${f(2)} - ${p}_c) or ${p}_c <= log(${p}_c / ${p}_u) + ${f(1)}`,
        );
        candidates.push({ ok: `${p}_ok`, value: `${p}_f` });
      }
      const fv = `${prefix}_fv`;
      const x = `${prefix}_xv`;
      lines.push(
        `<${dtype}> ${fv} = ${firstAccepted(candidates)}`,
        `<${dtype}> ${x} = if(${unit(raw, 2 * attempts * w, dtype)} < ${f(0.5)}, ${f(mu)} - acos(${fv}), ${f(mu)} + acos(${fv}))`,
      );
      // into [-pi, pi): C's fmod keeps the dividend's sign, so a value below -pi wraps once more
      const m = `fmod(${x} + ${f(Math.PI)}, ${f(2 * Math.PI)})`;
      return {
        code: lines.join('\n'),
        values: [`if(${m} < ${f(0)}, ${m} + ${f(2 * Math.PI)}, ${m}) - ${f(Math.PI)}`],
      };
    },
  });
}

/** The value of the first accepted candidate, else the last one's. */
function firstAccepted(candidates: readonly { ok: string; value: string }[]): string {
  let chosen = candidates[candidates.length - 1].value;
  for (let a = candidates.length - 2; a >= 0; a--)
    chosen = `if(${candidates[a].ok}, ${candidates[a].value}, ${chosen})`;
  return chosen;
}

/** The samplers by name, for `cbrng`'s convenience constructors. */
export const SAMPLERS = { uniformInteger, uniformFloat, normalBm, gamma, vonmises } as const;
