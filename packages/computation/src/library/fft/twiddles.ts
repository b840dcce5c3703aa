/**
 * The constants of the passes, computed on the host in float64 and rounded once to the
 * transform's precision, so that their error does not grow with the size (a table the
 * device computed in float32, or a recurrence, would lose digits on 2^20 points).
 *
 *   stageTable           a stage kernel's roots and pre-twiddles (StageTwiddles: a
 *                        two-level table where a direct one would be large)
 *   chirp(n)             exp(-pi i m^2 / n), m < n: Bluestein's chirp (m^2 taken modulo 2n
 *                        first, exactly, so the angle stays small)
 *   bluesteinFilter      the transform of the conjugate chirp laid out for a circular
 *                        convolution of size M, divided by M: one product in the middle of
 *                        Bluestein's algorithm
 */
import type { DType } from '@loom/core';
import { unitTwiddles, type StagePlan } from './stages.ts';

type Parts = { re: Float64Array; im: Float64Array };

/** exp(-2 pi i k / n) in float64, by the octant so that both parts are accurate near 0 and 1. */
function unitRoot(k: number, n: number): [number, number] {
  const a = (2 * Math.PI * k) / n;
  return [Math.cos(a), -Math.sin(a)];
}

/** Interleaved parts in the host array of `dtype` (complex64: Float32Array; complex128: Float64Array). */
function interleave(p: Parts, dtype: DType): Float32Array | Float64Array {
  const out = dtype === 'complex128' ? new Float64Array(2 * p.re.length) : new Float32Array(2 * p.re.length);
  for (let k = 0; k < p.re.length; k++) {
    out[2 * k] = p.re[k];
    out[2 * k + 1] = p.im[k];
  }
  return out;
}

/** The largest table of a stage's pre-twiddles read directly; larger ones are two tables of about its square root. */
export const DIRECT_TWIDDLES = 4096;

/**
 * Where a stage's constants lie in its table (offsets in complex elements): the R roots of
 * its passes in local memory at 0 (exp(-2 pi i m / R), read by passLines), then its
 * pre-twiddles exp(-2 pi i a / D), a = (j mod ns) r < D = ns R: directly (`lo` of D entries),
 * or for D above DIRECT_TWIDDLES as two tables, w^a = hi[a div K] lo[a mod K], each entry
 * rounded once from float64, so the product's error is two roundings whatever D (a table of
 * D entries would take 128 MB for 2^24 points, read scattered).
 *
 * With `units` U (a work-group's U consecutive sub-transforms j0 + u lying in one block of
 * ns), w^((j0 + u) r) = w^(j0 r) w^(u r): the second factor from a table of U R entries at
 * `unit` (entry r U + u, so that a warp's units read neighbours), the first from the tables
 * above at one index per r, which the group's work-items share. Without it a warp's work-items
 * would read D's tables at 32 scattered places (a stride of r).
 */
export interface StageTwiddles {
  readonly roots: number;
  readonly denominator: number;
  /** 0: no pre-twiddles (the first stage); else K, the `lo` table's length (D when direct). */
  readonly split: number;
  readonly lo: number;
  readonly hi: number;
  /** The stage's radix R (the unit table's rows). */
  readonly radix: number;
  /** U of the unit table (0: none) and its offset. */
  readonly units: number;
  readonly unit: number;
  readonly size: number;
}

/** A stage's table layout: radix R after sub-transforms of ns, `passes` passes in local memory, `units` as above (0: none). */
export function stageTwiddles(radix: number, ns: number, passes: number, units = 0): StageTwiddles {
  const roots = passes > 1 ? radix : 0;
  const denominator = ns * radix;
  const split = ns === 1 ? 0 : denominator <= DIRECT_TWIDDLES ? denominator : Math.ceil(Math.sqrt(denominator));
  const his = split && split < denominator ? Math.ceil(denominator / split) : 0;
  const unitCount = split ? units : 0;
  const hi = roots + split;
  const unit = hi + his;
  return { roots, denominator, split, lo: roots, hi, radix, units: unitCount, unit, size: unit + unitCount * radix };
}

/** The table layout of a stage kernel (stages.ts's plan). */
export const tableOfStage = (stage: StagePlan): StageTwiddles =>
  stageTwiddles(stage.radix, stage.ns, stage.passes.length, unitTwiddles(stage) ? stage.perGroup : 0);

/** The table `layout` describes, interleaved in the host array of `dtype`. */
export function stageTable(layout: StageTwiddles, dtype: DType): Float32Array | Float64Array {
  const re = new Float64Array(layout.size);
  const im = new Float64Array(layout.size);
  const put = (at: number, k: number, n: number) => {
    [re[at], im[at]] = unitRoot(k, n);
  };
  for (let m = 0; m < layout.roots; m++) put(m, m, layout.roots);
  for (let m = 0; m < layout.split; m++) put(layout.lo + m, m, layout.denominator);
  for (let m = 0; layout.hi + m < layout.unit; m++)
    put(layout.hi + m, (m * layout.split) % layout.denominator, layout.denominator);
  for (let r = 0; layout.units && r < layout.radix; r++)
    for (let u = 0; u < layout.units; u++) put(layout.unit + r * layout.units + u, u * r, layout.denominator);
  return interleave({ re, im }, dtype);
}

/** exp(-pi i m^2 / n) = exp(-2 pi i (m^2 mod 2n) / 2n), in float64 parts. */
function chirpParts(n: number): Parts {
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  for (let m = 0; m < n; m++) {
    const sq = Number((BigInt(m) * BigInt(m)) % BigInt(2 * n));
    [re[m], im[m]] = unitRoot(sq, 2 * n);
  }
  return { re, im };
}

/** Bluestein's chirp exp(-pi i m^2 / n), m < n, interleaved. */
export function chirp(n: number, dtype: DType): Float32Array | Float64Array {
  return interleave(chirpParts(n), dtype);
}

/**
 * The filter of Bluestein's convolution: b[m] = conj(chirp[|m|]) for -n < m < n, wrapped
 * around a circle of `size`, transformed (forward) and divided by `size`, interleaved.
 */
export function bluesteinFilter(n: number, size: number, dtype: DType): Float32Array | Float64Array {
  const c = chirpParts(n);
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  for (let m = 0; m < n; m++) {
    re[m] = c.re[m];
    im[m] = -c.im[m];
    if (m > 0) {
      re[size - m] = c.re[m];
      im[size - m] = -c.im[m];
    }
  }
  const roots = { re: new Float64Array(size), im: new Float64Array(size) };
  for (let k = 0; k < size; k++) [roots.re[k], roots.im[k]] = unitRoot(k, size);
  const f = hostTransform({ re, im }, roots);
  for (let k = 0; k < size; k++) {
    f.re[k] /= size;
    f.im[k] /= size;
  }
  return interleave(f, dtype);
}

/**
 * A forward DFT in float64 on the host (decimation in time by the smallest prime factor,
 * recursively; a prime length directly): for the filter above, whose size is smooth.
 */
function hostTransform(x: Parts, roots: Parts): Parts {
  const n = x.re.length;
  // exp(-2 pi i k / n) is the root table's entry k * stride
  const stride = roots.re.length / n;
  if (n <= 1) return { re: Float64Array.from(x.re), im: Float64Array.from(x.im) };
  let p = 2;
  while (n % p !== 0 && p * p <= n) p++;
  if (n % p !== 0) p = n;
  const m = n / p;
  // the p interleaved subsequences x[p*j + c], each transformed
  const subs: Parts[] = [];
  for (let c = 0; c < p; c++) {
    const re = new Float64Array(m);
    const im = new Float64Array(m);
    for (let j = 0; j < m; j++) {
      re[j] = x.re[p * j + c];
      im[j] = x.im[p * j + c];
    }
    subs.push(m > 1 ? hostTransform({ re, im }, roots) : { re, im });
  }
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    let sr = 0;
    let si = 0;
    for (let c = 0; c < p; c++) {
      const w = ((c * k) % n) * stride;
      const wr = roots.re[w];
      const wi = roots.im[w];
      const a = subs[c].re[k % m];
      const b = subs[c].im[k % m];
      sr += a * wr - b * wi;
      si += a * wi + b * wr;
    }
    re[k] = sr;
    im[k] = si;
  }
  return { re, im };
}
