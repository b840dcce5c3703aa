/**
 * Differential cases of computations with nothing to transform (issue 29), feature
 * `computationNoAxes`: a computation over no axes, or only over axes of one element, is the
 * identity (an exclusive scan: the predicate's empty value), and must still write its whole
 * output. `dht` over no axes once left its output unwritten, a wrong result with no error;
 * this draws the kind: a shape of rank 0 to 3 (axes of length 1 among them), then the empty
 * axis list or the axes of length 1, and runs reduce, scan (inclusive or exclusive), fft
 * (forward or inverse), fftShift (either direction) and dht (forward or inverse, over no axes) on every
 * device, each into an output filled with garbage first.
 */
import { DeviceArray, type Device } from '@loom/core';
import { dht, fft, fftShift, reduce, scan } from '@loom/computation';
import { sizeOf } from '../ndarray.ts';
import { COMMUTATIVE, NON_COMMUTATIVE, seeded } from '../predicates.ts';
import type { FeatureSet } from './features.ts';

/** What one case ran, and every disagreement with plain JS. */
export interface NoAxesResult {
  readonly ran: readonly string[];
  readonly findings: readonly string[];
}

/** A value no computation here produces from the drawn inputs: an element left unwritten shows. */
const GARBAGE = -12345;

/** The case of `seed`, from a stream of its own (the bench and the test draw the same case). */
export async function runNoAxesCase(
  seed: number,
  _features: FeatureSet,
  devices: readonly Device[],
): Promise<NoAxesResult> {
  const random = seeded(seed * 2654435761 + 41);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const rank = Math.floor(random() * 4);
  const shape = Array.from({ length: rank }, () => pick([1, 1, 2, 3, 7, 33, 100]));
  const ones = shape.flatMap((n, k) => (n === 1 ? [k] : []));
  const axes = ones.length && random() < 0.5 ? ones : [];
  const n = sizeOf(shape);
  const ran: string[] = [];
  const findings: string[] = [];
  const where = `shape (${shape}), axes (${axes})`;
  const check = (what: string, got: ArrayLike<number>, expected: ArrayLike<number>) => {
    const bad = Array.from(expected).findIndex((e, k) => got[k] !== e);
    if (got.length !== expected.length || bad >= 0)
      findings.push(`${what}, ${where}: element ${bad} is ${got[bad]}, expected ${expected[bad]} (seed ${seed})`);
  };
  // the computation's output a DeviceArray of garbage, so that what it leaves unwritten shows
  const into = async (
    device: Device,
    dtype: 'int32' | 'complex64',
    run: (out: DeviceArray) => Promise<unknown>,
  ): Promise<ArrayLike<number>> => {
    const parts = dtype === 'complex64' ? 2 * n : n;
    const out = await DeviceArray.from(device, Array(parts).fill(GARBAGE), dtype, shape);
    try {
      await run(out);
      return (await out.toHost()) as ArrayLike<number>;
    } finally {
      out.release();
    }
  };

  const p = random() < 0.5 ? pick(NON_COMMUTATIVE) : pick(COMMUTATIVE);
  const ints = p.draw(n, random);
  const exclusive = random() < 0.5;
  // halves: every complex value survives a transform of one point exactly
  const parts = Float32Array.from({ length: 2 * n }, () => Math.floor(random() * 64) / 2 - 16);
  const inverse = random() < 0.5 ? 1 : 0;
  const computations = {
    reduce: reduce({ dtype: 'int32', shape }, p.predicate, axes),
    scan: scan({ dtype: 'int32', shape }, p.predicate, { axes, exclusive }),
    fft: fft({ dtype: 'complex64', shape }, { axes }),
    fftShift: fftShift({ dtype: 'complex64', shape }, axes),
    // over an axis of one mode the DHT is no identity (one mode, several points): no axes at all
    dht: dht({ dtype: 'complex64', shape }, { axes: [], inverse: inverse === 1 }),
  };
  ran.push(
    `no axes: reduce and ${exclusive ? 'exclusive' : 'inclusive'} scan by ${p.name}, fft and fftShift (inverse ${inverse}), ${inverse ? 'inverse ' : ''}dht, ${where}`,
  );
  for (const device of devices) {
    const run = async (name: keyof typeof computations, out: DeviceArray, ...rest: unknown[]) => {
      const compiled = (await computations[name].compile(device)) as unknown as (...a: unknown[]) => Promise<unknown>;
      return compiled(out, ...rest);
    };
    const expectInts = async (name: 'reduce' | 'scan', expected: ArrayLike<number>) => {
      try {
        check(`${device.name}: ${name}`, await into(device, 'int32', (o) => run(name, o, ints)), expected);
      } catch (e) {
        findings.push(`${device.name}: ${name}, ${where}: ${(e as Error).message} (seed ${seed})`);
      }
    };
    const expectParts = async (name: 'fft' | 'fftShift' | 'dht', ...scalars: unknown[]) => {
      try {
        const got = await into(device, 'complex64', (o) => run(name, o, parts, ...scalars));
        check(`${device.name}: ${name}`, got, parts);
      } catch (e) {
        findings.push(`${device.name}: ${name}, ${where}: ${(e as Error).message} (seed ${seed})`);
      }
    };
    await expectInts('reduce', ints);
    await expectInts('scan', exclusive ? ints.map(() => p.predicate.empty) : ints);
    await expectParts('fft', inverse);
    await expectParts('fftShift', inverse);
    await expectParts('dht');
  }
  return { ran, findings };
}
