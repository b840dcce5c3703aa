/**
 * The helpers of Reikna's tests/test_dht.py (its FunctionHelper, generate_modes and
 * check_errors_first_order), for the ports in test/peers/reikna/test_dht.py*.test.ts. A function
 * is built on the host (in float64) from a few harmonic oscillator modes with known
 * coefficients, sampled on `getSpatialGrid`'s points. Reikna draws the modes at random; here
 * from a seeded generator, so a failure reproduces.
 */
import * as assert from 'uvu/assert';
import { DeviceArray } from '@loom/core';
import { dht, getSpatialGrid, harmonic } from '@loom/computation';
import { testDevices } from './devices.ts';
import { flatten, sizeOf, unflatten } from './ndarray.ts';

/** Seeded uniform numbers in (0, 1) (xorshift32) and standard normal ones (Box-Muller). */
function generator(seed: number): { uniform: () => number; normal: () => number } {
  let s = seed >>> 0 || 1;
  const uniform = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return ((s >>> 0) + 0.5) / 2 ** 32;
  };
  return { uniform, normal: () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform()) };
}

/** A mode's coefficient (real and imaginary parts) and its index: the batch first, if any. */
interface Mode {
  readonly re: number;
  readonly im: number;
  readonly coord: readonly number[];
}

/** Reikna's FunctionHelper.generate_modes: every mode when there are few, else 20 random ones per batch, plus the corners. */
export function generateModes(
  mshape: readonly number[],
  complex: boolean,
  batch: number | undefined,
  seed: number,
): Mode[] {
  const { uniform, normal } = generator(seed);
  const batches = batch === undefined ? [[]] : Array.from({ length: batch }, (_, b) => [b]);
  const coords = new Map<string, number[]>();
  const add = (c: number[]) => coords.set(c.join(), c);
  for (const b of batches) {
    if (sizeOf(mshape) <= 20) for (let f = 0; f < sizeOf(mshape); f++) add([...b, ...unflatten(f, mshape)]);
    else for (let r = 0; r < 20; r++) add([...b, ...mshape.map((n) => Math.floor(uniform() * n))]);
    // the corner modes: the extremes must be transformed right too
    for (let f = 0; f < 2 ** mshape.length; f++) add([...b, ...mshape.map((n, d) => ((f >> d) & 1 ? n - 1 : 0))]);
  }
  return [...coords.values()].map((coord) => {
    // higher modes get smaller coefficients: they are computed less precisely
    const scale = 1 / (coord.slice(batch === undefined ? 0 : 1).reduce((a, b) => a + b, 0) + 1);
    return { re: Math.fround(normal()) * scale, im: complex ? Math.fround(normal()) * scale : 0, coord };
  });
}

/** Reikna's FunctionHelper: the modes as an array, and the function they define (to a power) on a grid. */
export class FunctionHelper {
  readonly fullShape: readonly number[];
  constructor(
    readonly mshape: readonly number[],
    readonly complex: boolean,
    readonly modes: readonly Mode[],
    readonly order = 1,
    readonly batch?: number,
  ) {
    this.fullShape = batch === undefined ? mshape : [batch, ...mshape];
  }

  get lanes(): number {
    return this.complex ? 2 : 1;
  }

  /** The coefficients as the mode-space array (parts interleaved when complex). */
  mdata(): Float32Array {
    const out = new Float32Array(sizeOf(this.fullShape) * this.lanes);
    for (const m of this.modes) {
      const f = flatten(m.coord, this.fullShape) * this.lanes;
      out[f] = m.re;
      if (this.complex) out[f + 1] = m.im;
    }
    return out;
  }

  /** The function on the grid `xs` (one array of points per axis), raised to `order`; float64, rounded to float32. */
  values(xs: readonly Float64Array[]): Float32Array {
    const gridShape = xs.map((x) => x.length);
    const shape = this.batch === undefined ? gridShape : [this.batch, ...gridShape];
    const re = new Float64Array(sizeOf(shape));
    const im = new Float64Array(sizeOf(shape));
    // each mode function at each point of its axis, once
    const tables = xs.map((x, d) =>
      Array.from({ length: this.mshape[d] }, (_, m) => Array.from(x, (v) => harmonic(m)(v))),
    );
    const off = this.batch === undefined ? 0 : 1;
    for (const mode of this.modes) {
      for (let g = 0; g < sizeOf(gridShape); g++) {
        const at = unflatten(g, gridShape);
        const phi = at.reduce((p, v, d) => p * tables[d][mode.coord[off + d]][v], 1);
        const f = (off ? mode.coord[0] * sizeOf(gridShape) : 0) + g;
        re[f] += mode.re * phi;
        im[f] += mode.im * phi;
      }
    }
    const out = new Float32Array(re.length * this.lanes);
    for (let f = 0; f < re.length; f++) {
      // (re + i im) ** order, by repeated multiplication
      let [pr, pi] = [1, 0];
      for (let k = 0; k < this.order; k++) [pr, pi] = [pr * re[f] - pi * im[f], pr * im[f] + pi * re[f]];
      out[f * this.lanes] = pr;
      if (this.complex) out[f * this.lanes + 1] = pi;
    }
    return out;
  }
}

/** numpy.isclose(got, expected, atol, rtol=1e-5) everywhere (complex: on the modulus of the difference). */
export function assertNegligible(
  got: ArrayLike<number>,
  expected: ArrayLike<number>,
  lanes: number,
  atol: number,
  what: string,
): void {
  assert.is(got.length, expected.length, `${what}: length`);
  for (let k = 0; k < expected.length; k += lanes) {
    const d = Math.hypot(got[k] - expected[k], lanes === 2 ? got[k + 1] - expected[k + 1] : 0);
    const e = Math.hypot(expected[k], lanes === 2 ? expected[k + 1] : 0);
    if (!(d <= atol + 1e-5 * e))
      assert.unreachable(`${what}: element ${k / lanes} is off by ${d} (expected modulus ${e})`);
  }
}

/** Which extra grid points each axis gets: Reikna's fo_add_points ids. */
export type AddPointsId = '0' | '1' | '1,2,...';

/**
 * Reikna's check_errors_first_order: complex64 modes over axes 1.. of (batch, ...mshape); the
 * forward transform of the function's samples gives the coefficients back, and the inverse of
 * that the samples, on every test device.
 */
export async function checkErrorsFirstOrder(
  mshape: readonly number[],
  batch: number,
  addPointsId: AddPointsId,
  seed: number,
): Promise<void> {
  const addPoints =
    addPointsId === '0' ? mshape.map(() => 0) : addPointsId === '1' ? mshape.map(() => 1) : mshape.map((_, d) => d + 1);
  const helper = new FunctionHelper(mshape, true, generateModes(mshape, true, batch, seed), 1, batch);
  const xs = mshape.map((n, d) => getSpatialGrid(n, 1, addPoints[d]));
  const shape = [batch, ...mshape];
  const axes = mshape.map((_, d) => d + 1);
  const forward = dht({ dtype: 'complex64', shape }, { axes, addPoints: [0, ...addPoints] });
  const inverse = dht({ dtype: 'complex64', shape }, { inverse: true, axes, addPoints: [0, ...addPoints] });
  const xdata = helper.values(xs);
  const mdata = helper.mdata();
  for (const device of testDevices()) {
    const [fw, inv] = await Promise.all([forward.compile(device), inverse.compile(device)]);
    const coords = await DeviceArray.from(device, xdata, 'complex64', forward.parameter('coords').shape);
    const modes = await DeviceArray.from(device, new Float32Array(mdata.length), 'complex64', shape);
    await fw(modes, coords);
    assertNegligible((await modes.toHost()) as Float32Array, mdata, 2, 1e-6, `${device.name}: forward`);
    // the inverse of the forward's result, on the device, as Reikna's test does
    const back = (await inv(undefined, modes)).coords;
    assertNegligible(back, xdata, 2, 1e-6, `${device.name}: inverse`);
    coords.release();
    modes.release();
  }
}
