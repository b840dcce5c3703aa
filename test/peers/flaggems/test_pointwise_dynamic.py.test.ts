/**
 * Ports of FlagGems' tests/test_pointwise_dynamic.py, its calls (the FunctionSchema tests are in
 * test_pointwise_dynamic.py.schema.test.ts, the concurrent calls in
 * test_pointwise_dynamic.py.concurrency.test.ts): `out0=` is `{ out0: t }`; a StridedBuffer is a
 * Tensor viewing a Storage; `fn.instantiate(rank)` is the manually instantiated overload. Every
 * test calls the functions on every test device (ranks 0 to 7, scalars, two outputs,
 * broadcasting, given, permuted and strided outputs and inputs, 0-d and empty tasks) and checks each
 * element against plain JavaScript. FlagGems' Triton knobs (block pointers, 1-D tiles, grid sizes)
 * have no counterpart: Loom picks a kernel shape per call (`fn.plan(...).variant`: flat, vector4,
 * tiled), and the tests whose layouts reach several assert which each call got.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Device } from '@loom/core';
import { empty, pointwise, Storage, supportsDType, Tensor, tensor } from '@loom/elementwise';
import { testDevices } from '../../support/devices.ts';
import { assertNumbers, broadcastApply, sample, toDType } from '../../support/elementwise-reference.ts';
import { refusedNow } from '../../support/refusals.ts';
import {
  assertVariants,
  axmyRef,
  axpyRef,
  makeAdd,
  makeAxpy,
  makeAxpyAxmy,
  randn,
  valuesOf,
  viewed,
} from './support.ts';

const f32 = Math.fround;

/**
 * FlagGems' `for ndim in range(8): shape = [2] * ndim` with x and y contiguous, and again from rank 2 with y's
 * axes reversed (a transposed view), so that the task keeps its rank rather than coalescing into one axis.
 */
function rankCases(device: Device, seed: number) {
  const cases: { what: string; x: Tensor; y: Tensor; xv: number[]; yv: number[]; shape: number[] }[] = [];
  for (let ndim = 0; ndim < 8; ndim++) {
    const shape = Array<number>(ndim).fill(2);
    const x = randn(device, shape, seed + ndim);
    const y = randn(device, shape, seed + 10 + ndim);
    cases.push({ what: `rank ${ndim}`, x: x.t, y: y.t, xv: x.v, yv: y.v, shape });
    if (ndim >= 2) {
      const reversed = y.t.permute(...shape.map((_, d) => ndim - 1 - d));
      cases.push({ what: `rank ${ndim}, y reversed`, x: x.t, y: reversed, xv: x.v, yv: viewed(y.v, reversed), shape });
    }
  }
  return cases;
}

for (const device of testDevices()) {
  const on = { device };

  // -- calls ----------------------------------------------------------------------------------

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_without_non_tensor_args`, async () => {
    const add = makeAdd();
    const seen: string[] = [];
    for (const c of rankCases(device, 100)) {
      const out = await add(c.x, c.y);
      assert.equal(out.shape, c.shape, c.what);
      assertNumbers(
        await valuesOf(out),
        c.xv.map((x, k) => f32(x + c.yv[k])),
        c.what,
      );
      seen.push(add.plan(c.x, c.y).variant);
    }
    assertVariants(device, seen, ['flat', 'vector4', 'tiled']);
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_with_non_tensor_args`, async () => {
    const axpy = makeAxpy();
    const seen: string[] = [];
    for (const c of rankCases(device, 200)) {
      const out = await axpy(c.x, c.y, 2.0);
      assertNumbers(
        await valuesOf(out),
        c.xv.map((x, k) => axpyRef(2)(x, c.yv[k])),
        c.what,
      );
      seen.push(axpy.plan(c.x, c.y, 2.0).variant);
    }
    assertVariants(device, seen, ['flat', 'vector4', 'tiled']);
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_with_multiple_outputs`, async () => {
    const multipleOut = makeAxpyAxmy();
    const seen: string[] = [];
    for (const c of rankCases(device, 300)) {
      const [out0, out1] = await multipleOut(c.x, c.y, 2.0);
      assertNumbers(
        await valuesOf(out0),
        c.xv.map((x, k) => axpyRef(2)(x, c.yv[k])),
        `${c.what}: out0`,
      );
      assertNumbers(
        await valuesOf(out1),
        c.xv.map((x, k) => axmyRef(2)(x, c.yv[k])),
        `${c.what}: out1`,
      );
      seen.push(multipleOut.plan(c.x, c.y, 2.0).variant);
    }
    assertVariants(device, seen, ['flat', 'vector4', 'tiled']);
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_with_broadcasting`, async () => {
    const x = randn(device, [10, 1, 10], 4);
    const y = randn(device, [1, 10, 1], 5);
    const out = await makeAxpy()(x.t, y.t, 2.0);
    assert.equal(out.shape, [10, 10, 10]);
    const expected = broadcastApply(
      [
        { values: x.v, shape: [10, 1, 10] },
        { values: y.v, shape: [1, 10, 1] },
      ],
      axpyRef(2),
    );
    assertNumbers(await valuesOf(out), expected.values, 'x [10, 1, 10], y [1, 10, 1]');
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_with_broadcasting2`, async () => {
    const x = randn(device, [10, 1, 10], 6);
    const y = randn(device, [], 7); // a 0-d tensor
    const out = await makeAxpy()(x.t, y.t, 2.0);
    assert.equal(out.shape, [10, 1, 10]);
    assertNumbers(
      await valuesOf(out),
      x.v.map((v) => axpyRef(2)(v, y.v[0])),
      'x [10, 1, 10], y []',
    );
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_with_predefined_out`, async () => {
    const x = randn(device, [10, 10, 10], 8);
    const y = randn(device, [], 9);
    const o = empty([10, 10, 10], on);
    const out = await makeAxpy()(x.t, y.t, 2.0, { out0: o });
    assert.is(out, o);
    assertNumbers(
      await valuesOf(o),
      x.v.map((v) => axpyRef(2)(v, y.v[0])),
      'into out0',
    );
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_with_some_predefined_out1`, async () => {
    const x = randn(device, [10, 10, 10], 10);
    const y = randn(device, [], 11);
    const o = empty([10, 10, 10], on);
    const [out0, out1] = await makeAxpyAxmy()(x.t, y.t, 2.0, { out0: o });
    assert.is(out0, o);
    assert.equal(out1.shape, [10, 10, 10]);
    assertNumbers(
      await valuesOf(out0),
      x.v.map((v) => axpyRef(2)(v, y.v[0])),
      'out0, given',
    );
    assertNumbers(
      await valuesOf(out1),
      x.v.map((v) => axmyRef(2)(v, y.v[0])),
      'out1, allocated',
    );
    // FlagGems counts the outputs from promotion_methods; numOutputs (default 1) decides the function's type
    refusedNow(
      () =>
        pointwise(
          {
            isTensor: [true, true, false],
            promotionMethods: [
              [0, 1, 'DEFAULT'],
              [0, 1, 'DEFAULT'],
            ],
          },
          (a: number, b: number, alpha: number) => [alpha * a + b, alpha * a - b],
        ),
      /the payload returns 2 output\(s\), but numOutputs is 1 \(the default\)/,
    );
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_with_some_predefined_out2`, async () => {
    const x = randn(device, [10, 10, 10], 12);
    const y = randn(device, [], 13);
    const o = empty([10, 10, 10], on);
    const [out0, out1] = await makeAxpyAxmy()(x.t, y.t, 2.0, { out1: o });
    assert.is(out1, o);
    assertNumbers(
      await valuesOf(out0),
      x.v.map((v) => axpyRef(2)(v, y.v[0])),
      'out0, allocated',
    );
    assertNumbers(
      await valuesOf(out1),
      x.v.map((v) => axmyRef(2)(v, y.v[0])),
      'out1, given',
    );
  });

  /** FlagGems' `torch.randn([10, 10, 10]) > 0`, and its values. */
  const positives = (seed: number) => {
    const v = sample('float32', 1000, seed).map((x) => (x > 0 ? 1 : 0));
    return { t: tensor(Uint8Array.from(v), [10, 10, 10], { device, dtype: 'bool' }), v };
  };
  // torch's `~` of a bool tensor is JavaScript's `!`
  const makeInvert = () => pointwise({ isTensor: [true], promotionMethods: [[0, 'DEFAULT']] }, (x: boolean) => !x);

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_with_bool_input_and_output`, async () => {
    const x = positives(14);
    const notx = await makeInvert()(x.t);
    assert.is(notx.dtype, 'bool');
    assertNumbers(
      await valuesOf(notx),
      x.v.map((b) => 1 - b),
      '!x',
    );
    // JavaScript's ~true is -2, not false: over bool data `~` is refused when the call types the payload
    const tilde = pointwise({ promotionMethods: [[0, 'DEFAULT']] }, (b: number) => ~b);
    refusedNow(() => tilde(x.t), /the bitwise operator ~ over a truth value: .*write ! \(not\)/);
    // and so are & | ^ between truth values (PyTorch's logical and, or, xor; JavaScript's numbers)
    const and = pointwise({ promotionMethods: [[0, 1, 'DEFAULT']] }, (a: number, b: number) => a & b);
    refusedNow(() => and(x.t, x.t), /the bitwise operator & over a truth value/);
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_manual_instantiation`, async () => {
    const x = positives(15);
    const o = empty([10, 10, 10], { device, dtype: 'bool' });
    // an instantiated function allocates nothing: every output is given
    const notx = await makeInvert().instantiate(3)(x.t, { out0: o });
    assert.is(notx, o);
    assertNumbers(
      await valuesOf(o),
      x.v.map((b) => 1 - b),
      '!x',
    );
  });

  // the buffers of FlagGems' nd tests: [M, N, K] = [40, 60, 80], halved by steps of 2 or by permutations
  const [M, N, K] = [40, 60, 80];

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_with_nd_buffer`, async () => {
    const xBase = randn(device, [M, N, K], 16);
    const x = xBase.t.slice(0, null, null, 2).slice(1, null, null, 2).slice(2, null, null, 2);
    const yBase = randn(device, [N / 2, K / 2, M / 2], 17);
    const y = yBase.t.permute(2, 0, 1);
    const o = empty([M / 2, N / 2, K / 2], on);
    const [out0, out1] = await makeAxpyAxmy()(x, y, 2.0, { out0: o });
    assert.is(out0, o);
    const [xv, yv] = [viewed(xBase.v, x), viewed(yBase.v, y)];
    assertNumbers(
      await valuesOf(out0),
      xv.map((v, k) => axpyRef(2)(v, yv[k])),
      'out0',
    );
    assertNumbers(
      await valuesOf(out1),
      xv.map((v, k) => axmyRef(2)(v, yv[k])),
      'out1',
    );
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_with_nd_buffer_out_permute`, async () => {
    const xBase = randn(device, [M, N, K], 18);
    const x = xBase.t.slice(0, null, null, 2).slice(1, null, null, 2).slice(2, null, null, 2);
    const y = randn(device, [M / 2, N / 2, K / 2], 19);
    // both outputs permuted views, each in an order of its own
    const o = empty([M / 2, K / 2, N / 2], on).permute(0, 2, 1);
    const o2 = empty([K / 2, M / 2, N / 2], on).permute(1, 2, 0);
    const [out0, out1] = await makeAxpyAxmy()(x, y.t, 2.0, { out0: o, out1: o2 });
    assert.ok(out0 === o && out1 === o2);
    const xv = viewed(xBase.v, x);
    assertNumbers(
      await valuesOf(o),
      xv.map((v, k) => axpyRef(2)(v, y.v[k])),
      'out0, permuted',
    );
    assertNumbers(
      await valuesOf(o2),
      xv.map((v, k) => axmyRef(2)(v, y.v[k])),
      'out1, permuted',
    );
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_with_nd_buffer_broadcast`, async () => {
    const xBase = randn(device, [M, N, 2], 20);
    const x = xBase.t.slice(0, null, null, 2).slice(1, null, null, 2).slice(2, null, null, 2); // [20, 30, 1]
    const yBase = randn(device, [1, K / 2, M / 2], 21);
    const y = yBase.t.permute(2, 0, 1); // [20, 1, 40]
    const o = empty([M / 2, N / 2, K / 2], on);
    const [out0, out1] = await makeAxpyAxmy()(x, y, 2.0, { out0: o });
    assert.is(out0, o);
    const operands = [
      { values: viewed(xBase.v, x), shape: x.shape },
      { values: viewed(yBase.v, y), shape: y.shape },
    ];
    assertNumbers(await valuesOf(out0), broadcastApply(operands, axpyRef(2)).values, 'out0');
    assertNumbers(await valuesOf(out1), broadcastApply(operands, axmyRef(2)).values, 'out1');
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_with_nd_buffer_expand`, async () => {
    const xBase = randn(device, [1, K / 2, N / 2], 22);
    const x = xBase.t.permute(0, 2, 1).expand(M / 2, N / 2, K / 2);
    const yBase = randn(device, [1, K / 2, M / 2], 23);
    const y = yBase.t.permute(2, 0, 1).expand(M / 2, N / 2, K / 2);
    const o = empty([M / 2, N / 2, K / 2], on);
    const [out0, out1] = await makeAxpyAxmy()(x, y, 2.0, { out0: o });
    assert.is(out0, o);
    const [xv, yv] = [viewed(xBase.v, x), viewed(yBase.v, y)];
    assertNumbers(
      await valuesOf(out0),
      xv.map((v, k) => axpyRef(2)(v, yv[k])),
      'out0',
    );
    assertNumbers(
      await valuesOf(out1),
      xv.map((v, k) => axmyRef(2)(v, yv[k])),
      'out1',
    );
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_with_different_stride_order`, async () => {
    const x = randn(device, [M, N, K], 24);
    const yBase = randn(device, [N, K, M], 25);
    const y = yBase.t.permute(2, 0, 1);
    const o = empty([M, N, K], on);
    const axpyaxmy = makeAxpyAxmy();
    const [out0, out1] = await axpyaxmy(x.t, y, 2.0, { out0: o });
    assert.is(out0, o);
    const yv = viewed(yBase.v, y);
    assertNumbers(
      await valuesOf(out0),
      x.v.map((v, k) => axpyRef(2)(v, yv[k])),
      'out0',
    );
    assertNumbers(
      await valuesOf(out1),
      x.v.map((v, k) => axmyRef(2)(v, yv[k])),
      'out1',
    );
    // N and K merge into one axis: y moves fastest along M, the outputs along N * K, a transposition
    const plan = axpyaxmy.plan(x.t, y, 2.0, { out0: o });
    assert.equal(plan.taskShape, [M, N * K]);
    assertVariants(device, [plan.variant], ['tiled']);
  });

  // -- the manually instantiated overload -----------------------------------------------------

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_manual_instantiation_mixing_strided_buffer_and_tensor`, async () => {
    const x = randn(device, [10, 10, 10], 26);
    const y = randn(device, [10, 10, 10], 27);
    const out0Given = empty([10, 10, 10], on);
    // a StridedBuffer: a view made by hand over a storage, here flipped along axis 0 (strides torch cannot have)
    const out1Given = new Tensor(
      Storage.allocate(device, 'float32', 1000),
      'float32',
      [10, 10, 10],
      [-100, 10, 1],
      900,
    );
    const [out0, out1] = await makeAxpyAxmy().instantiate(3)(x.t, y.t, 2.0, { out0: out0Given, out1: out1Given });
    assert.is(out0, out0Given);
    assert.is(out1, out1Given);
    assertNumbers(
      await valuesOf(out0),
      x.v.map((v, k) => axpyRef(2)(v, y.v[k])),
      'out0',
    );
    assertNumbers(
      await valuesOf(out1),
      x.v.map((v, k) => axmyRef(2)(v, y.v[k])),
      'out1, flipped view',
    );
  });

  for (const [name, yShape] of [
    ['test_dynamic_function_manual_instantiation_does_not_support_broadcasting1', [1, 10]],
    ['test_dynamic_function_manual_instantiation_does_not_support_broadcasting2', [10, 1, 10]],
  ] as const) {
    test(`${device.name}: test_pointwise_dynamic.py::${name}`, () => {
      const x = randn(device, [10, 10, 10], 28);
      const y = randn(device, yShape, 29);
      const outs = { out0: empty([10, 10, 10], on), out1: empty([10, 10, 10], on) };
      refusedNow(
        () => makeAxpyAxmy().instantiate(3)(x.t, y.t, 2.0, outs),
        new RegExp(`instantiate\\(3\\): input 1 \\(y\\) has shape \\[${yShape.join(', ')}\\]`),
      );
    });
  }

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_manual_instantiation_does_not_allocate_output`, () => {
    const x = randn(device, [10, 10, 10], 30);
    const y = randn(device, [10, 1, 10], 31);
    refusedNow(() => makeAxpyAxmy().instantiate(3)(x.t, y.t, 2.0), /needs every output: pass out0/);
  });

  // -- grids, indices, 0-d and empty tasks ------------------------------------------------------

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_gsl`, async () => {
    // FlagGems caps the grid at 80 blocks of 512, so that blocks loop over tiles; Loom launches the groups a task
    // needs: small work-groups of 8 make the larger ranks span several
    const add = makeAdd({ blockSize: 8 });
    const seen: string[] = [];
    for (const c of rankCases(device, 400)) {
      const out = await add(c.x, c.y);
      assertNumbers(
        await valuesOf(out),
        c.xv.map((x, k) => f32(x + c.yv[k])),
        c.what,
      );
      seen.push(add.plan(c.x, c.y).variant);
    }
    // a 32 x 32 tile needs work-groups of a multiple of 32: the transposed calls are flat
    assertVariants(device, seen, ['flat', 'vector4']);
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_int64_index`, async () => {
    const f = pointwise({ promotionMethods: [[0, 'DEFAULT']] }, (x: number) => x * 2.0);
    // FlagGems' float16, where the device has it (NVIDIA's Vulkan adapter lacks WebGPU's 'shader-f16': refused)
    const half = supportsDType(device, 'float16');
    if (!half) refusedNow(() => f.plan(tensor([1], [1], { device, dtype: 'float16' })), /float16 is not available on/);
    const dtype = half ? 'float16' : 'float32';
    const v = sample(dtype, 2 * 8 * 8 * 8, 32);
    const x = tensor(v, [2, 8, 8, 8], { device, dtype });
    const y = await f(x);
    assert.is(y.dtype, dtype);
    assertNumbers(
      await valuesOf(y),
      v.map((e) => toDType(2 * e, dtype)),
      `x * 2 in ${dtype}`,
    );
    // FlagGems' (2, 1024, 1024, 1024): 2^31 elements, past the int32 indices of Loom's kernels. The input is
    // one element expanded (no memory); the call is refused with its metadata, before the 4 GiB output exists
    let allocated = 0;
    const counting: Device = Object.create(device);
    counting.allocate = (bytes: number) => {
      allocated += bytes;
      return device.allocate(bytes);
    };
    const one = tensor([1], [1, 1, 1, 1], { device: counting, dtype });
    const before = allocated;
    const huge = one.expand(2, 1024, 1024, 1024);
    refusedNow(() => f.plan(huge), /a pointwise task of 2147483648 elements exceeds the int32 indices/);
    refusedNow(() => f(huge), /a pointwise task of 2147483648 elements exceeds the int32 indices/);
    assert.is(allocated, before, 'nothing allocated');
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_0d_task`, async () => {
    const x = randn(device, [], 33);
    const y = randn(device, [], 34);
    const add = makeAdd();
    const out = await add(x.t, y.t);
    assert.equal(out.shape, []);
    assertNumbers(await valuesOf(out), [f32(x.v[0] + y.v[0])], 'x + y');
    assert.is(add.plan(x.t, y.t).rank, 0);
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_zero_sized_task_unary`, async () => {
    const f = pointwise({ promotionMethods: [[0, 'DEFAULT']] }, (x: number) => x * 2.0);
    const out = await f(tensor(new Float32Array(0), [0, 10], on));
    assert.equal([out.shape, out.dtype], [[0, 10], 'float32']);
    assert.equal(await valuesOf(out), []);
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_zero_sized_task_binary`, async () => {
    const f = pointwise({ promotionMethods: [[0, 1, 'DEFAULT']] }, (x: number, y: number) => x * 2.0 + y);
    const x = tensor(new Float32Array(0), [0, 10], on);
    const out = await f(x, tensor(new Float32Array(0), [0, 10], on));
    assert.equal([out.shape, out.dtype], [[0, 10], 'float32']);
    assert.equal(await valuesOf(out), []);
    // broadcasting still applies to the empty shape
    const wide = await f(x, randn(device, [10], 35).t);
    assert.equal(wide.shape, [0, 10]);
  });
}

test.run();
