/**
 * `reduce` with predicates that do not commute (issue 24): the order of the elements is kept
 * over every shape class the passes see (one row, a multi-pass row, many rows, short rows,
 * the inner axis, an outer axis through the gather, several axes, sizes that are not a
 * multiple of the work-group), and the commutative predicates still take their own path;
 * scan, the other computation that takes a predicate, keeps the order too.
 * Each result is compared with plain JS on every test device.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reduce, scan } from '@loom/computation';
import { testDevices } from './support/devices.ts';
import { reduceRef, scanAlongAxes as scanReference, sizeOf } from './support/ndarray.ts';
import { COMMUTATIVE, FIRST_NON_ZERO, NON_COMMUTATIVE, seeded, type TestPredicate } from './support/predicates.ts';

interface Case {
  readonly shape: readonly number[];
  /** Default: every axis. */
  readonly axes?: readonly number[];
  readonly why: string;
}

const CASES: readonly Case[] = [
  { shape: [1], why: 'one element' },
  { shape: [13], why: 'one row, shorter than a work-group (a tree pass of one small work-group)' },
  { shape: [1535], why: 'one row, one tree pass, not a multiple of the work-group' },
  { shape: [100_003], why: 'one row of several tree passes' },
  { shape: [7, 5000], axes: [1], why: 'a few rows, the inner axis (the first non-zero of issue 24)' },
  { shape: [3, 70_001], axes: [1], why: 'long rows, two tree passes each' },
  { shape: [300, 3], axes: [1], why: 'many short rows' },
  { shape: [5000, 7], axes: [0], why: 'an outer axis (gathered into rows)' },
  { shape: [5, 15, 19], axes: [0, 2], why: 'two axes apart' },
  { shape: [134, 25, 23], why: 'every axis of a rank-3 array' },
];

async function check(p: TestPredicate, c: Case, seed: number): Promise<void> {
  const axes = c.axes ?? c.shape.map((_, k) => k);
  const a = p.draw(sizeOf(c.shape), seeded(seed));
  const expected = reduceRef(a, c.shape, axes, p.op, p.predicate.empty);
  const comp = reduce({ dtype: 'int32', shape: c.shape }, p.predicate, c.axes);
  for (const device of testDevices()) {
    const { output } = await (await comp.compile(device))(undefined, a);
    assert.equal(
      [...(output as Int32Array)],
      expected,
      `${device.name}: ${p.name}, shape (${c.shape}), axes (${axes}): ${c.why}`,
    );
  }
}

for (const [k, c] of CASES.entries()) {
  test(`reduce keeps the order of a non-commutative predicate: shape (${c.shape}), axes (${c.axes ?? 'all'})`, async () => {
    for (const [j, p] of NON_COMMUTATIVE.entries()) await check(p, c, 100 * k + j + 1);
  });
}

test('the first non-zero of 7 rows of 5000 (issue 24): its known answer and plain JS agree', async () => {
  // row r is zero before element 50 + 40 r, then counts up: its first non-zero is 51 + 40 r
  const shape = [7, 5000];
  const a = Int32Array.from({ length: sizeOf(shape) }, (_, f) =>
    f % 5000 >= 50 + 40 * Math.floor(f / 5000) ? (f % 5000) + 1 : 0,
  );
  const expected = reduceRef(a, shape, [1], FIRST_NON_ZERO.op, 0);
  assert.equal(expected, [51, 91, 131, 171, 211, 251, 291]);
  const comp = reduce({ dtype: 'int32', shape }, FIRST_NON_ZERO.predicate, [1]);
  for (const device of testDevices()) {
    const { output } = await (await comp.compile(device))(undefined, a);
    assert.equal([...(output as Int32Array)], expected, device.name);
  }
});

test('the commutative predicates (sum, product, max, min) still take the strided path, and are right on it', async () => {
  // a few of the shape classes: test/peers/reikna/test_reduce.py.test.ts covers the others with sums
  for (const k of [2, 3, 5, 7])
    for (const [j, p] of COMMUTATIVE.entries()) await check(p, CASES[k], 1000 + 100 * k + j);
});

test('scan keeps the order of the same predicates: blocks in turn, and block offsets in parallel', async () => {
  const cases = [
    { shape: [300, 41], axes: [1], options: { exclusive: true } },
    { shape: [100_003], axes: [0], options: { workGroupSize: 32, perItem: 3 } },
    { shape: [5, 15, 19], axes: [2, 0], options: {} },
  ];
  for (const [k, c] of cases.entries()) {
    for (const [j, p] of NON_COMMUTATIVE.entries()) {
      const a = p.draw(sizeOf(c.shape), seeded(500 + 10 * k + j));
      const expected = scanReference(a, c.shape, c.axes, p.op, p.predicate.empty, c.options.exclusive ?? false);
      const comp = scan({ dtype: 'int32', shape: c.shape }, p.predicate, { ...c.options, axes: c.axes });
      for (const device of testDevices()) {
        const { output } = await (await comp.compile(device))(undefined, a);
        assert.equal(
          [...(output as Int32Array)],
          expected,
          `${device.name}: scan, ${p.name}, shape (${c.shape}), axes (${c.axes})`,
        );
      }
    }
  }
});

test.run();
