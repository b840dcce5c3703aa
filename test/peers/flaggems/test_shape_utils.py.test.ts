/**
 * Ports of FlagGems' tests/test_shape_utils.py. FlagGems' shape_utils are the helpers its
 * `pointwise_dynamic` wrapper lays a call out with; Loom's counterparts live in @loom/elementwise:
 *
 * - c_contiguous_stride is the public `contiguousStrides` (and the strides `tensor`/`empty` give).
 * - f_contiguous_stride, ordered_stride and stride_order are `stridesInOrder` and `strideOrder` of
 *   packages/elementwise/src/layout.ts, tested directly (same meaning: an order lists the axes fastest
 *   first, a size 0 counts as 1, a negative stride orders as its absolute value), and through what the
 *   public API shows of them: a view made with `empty`/`tensor` and `permute` has those strides, and a
 *   pointwise call allocates its output "following the inputs' stride order" (README), which runs on
 *   every device and is checked against plain JavaScript.
 * - all_the_same_shape, all_the_same_stride and all_c_contiguous decide FlagGems' fast path, which
 *   collapses the task into one axis. Loom has no such predicates: its coalescing (layout.ts) merges
 *   the axes that every operand allows to merge, so the tests check the observable effect through
 *   `fn.plan(...)` — the rank and shape of the task — and run the calls. A list of no tensors (the
 *   `_empty` tests) is the vacuous case of the same machinery: no shapes to broadcast
 *   (`broadcastShapes([])`), no operand to keep two axes apart (`coalesce` with no operands, internal),
 *   no operand to order the axes (an output of all-broadcast inputs is C-contiguous).
 * - heuristics_for_tile_size has no counterpart that picks a tile per shape: a call's kernel shape
 *   (`fn.plan(...).variant`) fixes its tile — `flat`, four elements per work-item, `blockSize`
 *   work-items per group, whatever the task's shape; `tiled`, 32 x 32 — which the test reads from the
 *   plan's kernel (`getGridSizeUpperBounds`) for FlagGems' shape. heuristics_for_num_warps is in
 *   test/peers/NOT-PORTED.md (Loom's work-group size is `blockSize`, not chosen per tile).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluateInt, getGridSizeUpperBounds, targetFacts, type Device } from '@loom/core';
import { broadcastShapes, contiguous, contiguousStrides, empty, pointwise, tensor } from '@loom/elementwise';
import { coalesce, strideOrder, stridesInOrder } from '../../../packages/elementwise/src/layout.ts';
import { TILE } from '../../../packages/elementwise/src/variants.ts';
import { testDevices } from '../../support/devices.ts';
import { assertNumbers, broadcastApply } from '../../support/elementwise-reference.ts';
import { refusedNow } from '../../support/refusals.ts';
import { randn as sharedRandn, randnValues as sharedRandnValues, valuesOf, viewed } from './support.ts';

const f32 = Math.fround;
const numel = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

/** FlagGems' torch.randn in multiples of 1/64: the payloads' sums exact in any order (WebGPU may reassociate). */
const randnValues = (n: number, seed: number) => sharedRandnValues(n, seed, true);

/**
 * A float32 tensor of `shape` whose axes are laid out in `order` (fastest first), made with the public
 * API: a row-major tensor of the axes slowest first, permuted back; and its elements, row-major.
 */
function laidOut(device: Device, shape: readonly number[], order: readonly number[], seed: number) {
  const outerFirst = [...order].reverse();
  const baseShape = outerFirst.map((a) => shape[a]);
  const stored = randnValues(numel(shape), seed);
  const base = tensor(Float32Array.from(stored), baseShape, { device });
  const t = base.permute(...shape.map((_, a) => outerFirst.indexOf(a)));
  return { t, v: viewed(stored, t) };
}

/** A float32 tensor of `shape`, row-major, and its values (randnValues). */
const randn = (device: Device, shape: readonly number[], seed: number) => sharedRandn(device, shape, seed, true);

// the payloads: exact in float32, so every device agrees with plain JavaScript
const neg = pointwise({ promotionMethods: [[0, 'DEFAULT']] }, (x: number) => -x);
const add2 = pointwise({ promotionMethods: [[0, 1, 'DEFAULT']] }, (a: number, b: number) => a + b);
const add3 = pointwise({ promotionMethods: [[0, 1, 2, 'DEFAULT']] }, (a: number, b: number, c: number) => a + b + c);
const add4 = pointwise(
  { promotionMethods: [[0, 1, 2, 3, 'DEFAULT']] },
  (a: number, b: number, c: number, d: number) => a + b + c + d,
);
const sum3 = (a: number, b: number, c: number) => f32(f32(a + b) + c);

// -- strides of a shape (no kernel) ------------------------------------------------------------

test('test_shape_utils.py::test_c_contiguous_stride_normal', () => {
  const shape = [2, 3, 4];
  assert.equal(contiguousStrides(shape), [12, 4, 1]);
  // what a new tensor gets
  assert.equal(empty(shape).strides, [12, 4, 1]);
  const t = tensor(new Float32Array(24), shape);
  assert.equal(t.strides, [12, 4, 1]);
  assert.ok(t.isContiguous());
});

test('test_shape_utils.py::test_c_contiguous_stride_with_zero_size', async () => {
  // a size 0 counts as 1, as in FlagGems (and PyTorch)
  const shape = [2, 0, 4];
  assert.equal(contiguousStrides(shape), [4, 4, 1]);
  const t = empty(shape);
  assert.equal(t.strides, [4, 4, 1]);
  assert.equal(tensor(new Float32Array(0), shape).strides, [4, 4, 1]);
  // and a tensor with those strides is C-contiguous (regression: isContiguous() multiplied the sizes, 0 for
  // the axes before the empty one, so that a new empty tensor was not contiguous and contiguous() copied it)
  assert.ok(t.isContiguous());
  assert.is(await contiguous(t), t);
});

// -- no tensors at all: the vacuous cases (no kernel) ------------------------------------------

test('test_shape_utils.py::test_all_the_same_shape_empty', () => {
  // no shapes disagree: they broadcast to the shape of no axes
  assert.equal(broadcastShapes([]), []);
  // and shapes that are all the same broadcast to themselves
  assert.equal(
    broadcastShapes([
      [2, 3],
      [2, 3],
      [2, 3],
    ]),
    [2, 3],
  );
});

test('test_shape_utils.py::test_all_the_same_stride_empty', () => {
  // coalescing merges two axes when every operand's strides allow it: with no operands, all of them merge
  const shape = [2, 3, 4];
  const merged = coalesce(shape, [], strideOrder(shape, []));
  assert.equal(merged.shape, [numel(shape)]);
  assert.equal(merged.strides, []);
});

for (const device of testDevices()) {
  const sideBySide = !targetFacts(device.target).sequentialWorkItems;

  // -- strides in an order, and outputs allocated in their inputs' order ------------------------

  /** FlagGems' shape, order and expected strides; the order fastest first (Loom's and FlagGems'). */
  const orderedCases: [string, number[], number[], number[]][] = [
    ['test_f_contiguous_stride_normal', [2, 3, 4], [0, 1, 2], [1, 2, 6]],
    ['test_f_contiguous_stride_with_zero_size', [2, 0, 4], [0, 1, 2], [1, 2, 2]],
    ['test_ordered_stride_normal', [2, 3, 4], [0, 2, 1], [1, 8, 2]],
    ['test_ordered_stride_with_zero_size', [2, 3, 0], [0, 2, 1], [1, 2, 2]],
  ];
  for (const [name, shape, order, expected] of orderedCases) {
    test(`${device.name}: test_shape_utils.py::${name}`, async () => {
      // FlagGems' f_contiguous_stride is the order of the axes as they come, fastest first
      assert.equal(stridesInOrder(shape, order), expected, 'stridesInOrder');
      const x = laidOut(device, shape, order, 10 + orderedCases.findIndex((c) => c[0] === name));
      assert.equal(x.t.strides, expected, 'a view laid out in that order');
      assert.equal(strideOrder(shape, [x.t.strides]), order, 'strideOrder reads the order back');
      const out = await neg(x.t);
      assert.equal(out.strides, expected, "the output follows its input's order");
      assertNumbers(
        await valuesOf(out),
        x.v.map((v) => -v),
        '-x',
      );
    });
  }

  test(`${device.name}: test_shape_utils.py::test_stride_order`, async () => {
    const strides = [8, 16, 1];
    // a shape those strides lay out densely: axis 2 fastest (8), then axis 0 (2), then axis 1 (3)
    const shape = [2, 3, 8];
    assert.equal(strideOrder(shape, [strides]), [2, 0, 1]);
    // a flipped axis orders as its mirror image (FlagGems sorts by the absolute stride)
    assert.equal(strideOrder(shape, [[-8, 16, 1]]), [2, 0, 1]);
    const x = laidOut(device, shape, [2, 0, 1], 20);
    assert.equal(x.t.strides, strides);
    const out = await neg(x.t);
    assert.equal(out.strides, strides, "the output follows its input's order");
    assertNumbers(
      await valuesOf(out),
      x.v.map((v) => -v),
      '-x',
    );
    const flipped = x.t.flip(0);
    assert.equal(flipped.strides, [-8, 16, 1]);
    const fromFlipped = await neg(flipped);
    assert.equal(fromFlipped.strides, strides, 'allocated in the same order, forwards');
    assertNumbers(
      await valuesOf(fromFlipped),
      viewed(randnValues(numel(shape), 20), flipped).map((v) => -v),
      '-flip(x, 0)',
    );
  });

  // -- FlagGems' fast path: one axis when the operands agree ----------------------------------

  test(`${device.name}: test_shape_utils.py::test_all_the_same_shape1`, async () => {
    const xs = [0, 1, 2].map((k) => randn(device, [2, 3], 30 + k));
    const plan = add3.plan(...xs.map((x) => x.t));
    assert.equal(plan.shape, [2, 3]);
    assert.equal(plan.taskShape, [numel([2, 3])], 'one axis, as FlagGems collapses the task');
    const out = await add3(...xs.map((x) => x.t));
    assert.equal(out.strides, contiguousStrides([2, 3]));
    assertNumbers(
      await valuesOf(out),
      xs[0].v.map((v, k) => sum3(v, xs[1].v[k], xs[2].v[k])),
      'a + b + c',
    );
  });

  test(`${device.name}: test_shape_utils.py::test_all_the_same_shape2`, async () => {
    const xs = [0, 1, 2].map((k) => randn(device, [2, 3], 40 + k));
    // FlagGems' fourth tensor, of shape [10], cannot take part in the call at all
    const ten = randn(device, [10], 43);
    refusedNow(() => add4(...xs.map((x) => x.t), ten.t), /shapes cannot be broadcast together/);
    // one that broadcasts, [3], is read with stride 0 along axis 0: the task keeps both axes
    const row = randn(device, [3], 44);
    const plan = add4.plan(...xs.map((x) => x.t), row.t);
    assert.equal(plan.taskShape, [2, 3]);
    const out = await add4(...xs.map((x) => x.t), row.t);
    const expected = broadcastApply(
      [...xs.map((x) => ({ values: x.v, shape: [2, 3] })), { values: row.v, shape: [3] }],
      (a: number, b: number, c: number, d: number) => f32(sum3(a, b, c) + d),
    );
    assertNumbers(await valuesOf(out), expected.values, 'a + b + c + row');
  });

  test(`${device.name}: test_shape_utils.py::test_all_the_same_stride1`, async () => {
    // FlagGems' tensors: row-major, the same strides
    const xs = [0, 1, 2].map((k) => randn(device, [2, 3], 50 + k));
    assert.equal(add3.plan(...xs.map((x) => x.t)).taskShape, [6]);
    // the same strides but not row-major (each a transposed [3, 2]): dense, so one axis too, and the
    // output is allocated in their order (FlagGems' fast path: all_the_same_stride and dense)
    const ts = [0, 1, 2].map((k) => laidOut(device, [2, 3], [0, 1], 53 + k));
    assert.ok(ts.every((x) => !x.t.isContiguous() && x.t.strides.join() === ts[0].t.strides.join()));
    const plan = add3.plan(...ts.map((x) => x.t));
    assert.equal(plan.taskShape, [6]);
    const out = await add3(...ts.map((x) => x.t));
    assert.equal(out.strides, ts[0].t.strides);
    assertNumbers(
      await valuesOf(out),
      ts[0].v.map((v, k) => sum3(v, ts[1].v[k], ts[2].v[k])),
      'a + b + c, transposed',
    );
  });

  test(`${device.name}: test_shape_utils.py::test_all_the_same_stride2`, async () => {
    const xs = [0, 1].map((k) => randn(device, [2, 3], 60 + k));
    refusedNow(() => add3(xs[0].t, xs[1].t, randn(device, [10], 62).t), /shapes cannot be broadcast together/);
    // the same shape, other strides (a transposed view): the task keeps its two axes
    const y = laidOut(device, [2, 3], [0, 1], 63);
    const plan = add2.plan(xs[0].t, y.t);
    assert.equal(plan.taskShape, [2, 3]);
    // on devices whose work-items run side by side, the transposed input is read through tiles
    assert.is(plan.variant, sideBySide ? 'tiled' : 'flat');
    const out = await add2(xs[0].t, y.t);
    assert.equal(out.strides, contiguousStrides([2, 3]), 'the first operand decides the order');
    assertNumbers(
      await valuesOf(out),
      xs[0].v.map((v, k) => f32(v + y.v[k])),
      'x + y.T',
    );
  });

  test(`${device.name}: test_shape_utils.py::test_all_c_contiguous_empty`, async () => {
    // with no operand to tell the axes apart, the order is row-major: outputs are allocated C-contiguous
    const shape = [2, 3, 4];
    assert.equal(stridesInOrder(shape, strideOrder(shape, [])), contiguousStrides(shape));
    // an input broadcast along every axis says nothing of the order either
    const one = tensor([1.5], undefined, { device, dtype: 'float32' }).expand(...shape);
    assert.equal(one.strides, [0, 0, 0]);
    const out = await neg(one);
    assert.equal(out.strides, contiguousStrides(shape));
    assertNumbers(await valuesOf(out), Array(numel(shape)).fill(-1.5), '-1.5 everywhere');
  });

  test(`${device.name}: test_shape_utils.py::test_all_c_contiguous1`, async () => {
    const xs = [randn(device, [3, 4], 70), randn(device, [2, 3], 71)];
    assert.ok(xs.every((x) => x.t.isContiguous()));
    for (const x of xs) {
      assert.equal(neg.plan(x.t).taskShape, [x.t.numel], `[${x.t.shape}]: one axis`);
      const out = await neg(x.t);
      assert.ok(out.isContiguous());
      assertNumbers(
        await valuesOf(out),
        x.v.map((v) => -v),
        `-x of shape [${x.t.shape}]`,
      );
    }
  });

  // -- tiles ------------------------------------------------------------------------------------

  test(`${device.name}: test_shape_utils.py::test_heuristics_for_tile_size`, () => {
    // FlagGems' task (10000, 10000, 10), kept 3-D: an input [1, 10000, 1] broadcast over the other axes
    // (nothing is allocated for the 10^9 outputs: plan() only plans)
    const shape = [10000, 10000, 10];
    const x = tensor(new Float32Array(10000), [1, 10000, 1], { device }).expand(...shape);
    for (const blockSize of [256, 64]) {
      const scale = pointwise({ promotionMethods: [[0, 'DEFAULT']], blockSize }, (v: number) => v * 2);
      const plan = scale.plan(x);
      assert.equal(plan.taskShape, shape);
      assert.is(plan.variant, 'flat', plan.reason);
      // a work-group's tile: 4 elements per work-item (README), consecutive in the flat task, whatever its shape
      const grid = getGridSizeUpperBounds(plan.kernel);
      const env = (name: string) => {
        if (name === 'n') return numel(shape);
        throw new Error(`unexpected parameter ${name} in the flat grid`);
      };
      assert.equal(
        grid.local.map((e) => evaluateInt(e, env, 'local size')),
        [blockSize],
      );
      assert.equal(
        grid.groups.map((e) => evaluateInt(e, env, 'groups')),
        [Math.ceil(numel(shape) / (4 * blockSize))],
      );
    }
    // FlagGems' 2-D tiles: a transposed input, where the work-items run side by side, gets 32 x 32 tiles
    const a = empty([10, 10000], { device });
    const b = empty([10000, 10], { device }).transpose(0, 1);
    const plan = add2.plan(a, b);
    assert.equal(plan.taskShape, [10, 10000]);
    assert.is(plan.variant, sideBySide ? 'tiled' : 'flat', plan.reason);
    if (plan.variant === 'tiled') {
      const grid = getGridSizeUpperBounds(plan.kernel);
      const env = (name: string) => {
        const size = /^size(\d)$/.exec(name);
        if (size) return plan.taskShape[Number(size[1])];
        throw new Error(`unexpected parameter ${name} in the tiled grid`);
      };
      // axis 0 of the launch runs along the task's inner axis (coalesced writes)
      assert.equal(
        grid.groups.map((e) => evaluateInt(e, env, 'groups')),
        [Math.ceil(10000 / TILE), Math.ceil(10 / TILE)],
      );
      assert.equal(
        grid.local.map((e) => evaluateInt(e, env, 'local size')),
        [TILE, 256 / TILE],
      );
    }
  });
}

test.run();
