/**
 * Ports of FlagGems' tests/test_pointwise_dynamic.py. FlagGems' `pointwise_dynamic` is Loom's
 * `pointwise(options, payload)`: its FunctionSchema is the options (`isTensor`, `dtypes`,
 * `promotionMethods`, `numOutputs`) checked against the payload, whose parameters are the inputs;
 * `out0=` is `{ out0: t }`; a StridedBuffer is a Tensor viewing a Storage; `fn.instantiate(rank)` is
 * the manually instantiated overload. The schema tests check what `pointwise()` accepts and
 * refuses; the others call the functions on every test device (ranks 0 to 7, scalars, two
 * outputs, broadcasting, given, permuted and strided outputs and inputs, 0-d and empty tasks,
 * calls in flight together and in other processes) and check each element against plain
 * JavaScript. FlagGems' Triton knobs (block pointers, 1-D tiles, grid sizes) have no counterpart:
 * Loom picks a kernel shape per call (`fn.plan(...).variant`: flat, vector4, tiled), and the tests
 * whose layouts reach several assert which each call got.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { targetFacts, type Device } from '@loom/core';
import { empty, pointwise, Storage, Tensor, tensor } from '@loom/elementwise';
import { testDevices } from '../../support/devices.ts';
import {
  assertNumbers,
  broadcastApply,
  indices,
  numbers,
  sample,
  toDType,
} from '../../support/elementwise-reference.ts';
import { AXPY_INPUT_SIZE, axpyInputs } from './concurrency-child.ts';
import { refusedNow } from '../../support/refusals.ts';

const f32 = Math.fround;

/** A float32 tensor of `shape` with deterministic values in [-2, 2) (FlagGems' torch.randn), and those values. */
function randn(device: Device, shape: readonly number[], seed: number): { t: Tensor; v: number[] } {
  const v = sample(
    'float32',
    shape.reduce((a, b) => a * b, 1),
    seed,
  );
  return { t: tensor(Float32Array.from(v), [...shape], { device }), v };
}

/** The elements of the view `t`, in row-major order, of a storage holding `storage` (as PyTorch reads a view). */
function viewed(storage: readonly number[], t: Tensor): number[] {
  return Array.from(indices(t.shape), (index) => storage[index.reduce((at, i, d) => at + i * t.strides[d], t.offset)]);
}

/** A tensor's elements as numbers, row-major. */
async function valuesOf(t: Tensor): Promise<number[]> {
  return numbers(await t.toArray(), t.dtype);
}

/** Whether the device's work-items run side by side (OpenCL, WebGPU): only there are calls given vector4 or tiled kernels. */
const sideBySide = (device: Device) => !targetFacts(device.target).sequentialWorkItems;

/** Asserts the kernel shapes a test's calls got: `expected` where work-items run side by side, else flat only. */
function assertVariants(device: Device, seen: Iterable<string>, expected: string[]): void {
  assert.equal([...new Set(seen)].sort(), sideBySide(device) ? [...expected].sort() : ['flat'], 'kernel shapes');
}

// FlagGems' functions of the tests, as payloads

/** alpha * x + y in float32, as the devices compute it (2 * x is exact, so a fused multiply-add agrees). */
const axpyRef = (alpha: number) => (x: number, y: number) => f32(f32(alpha * x) + y);
const axmyRef = (alpha: number) => (x: number, y: number) => f32(f32(alpha * x) - y);

const makeAdd = (options: { blockSize?: number } = {}) =>
  pointwise({ promotionMethods: [[0, 1, 'DEFAULT']], ...options }, (x: number, y: number) => x + y);

const makeAxpy = () =>
  pointwise(
    { isTensor: [true, true, false], promotionMethods: [[0, 1, 'DEFAULT']] },
    (x: number, y: number, alpha: number) => alpha * x + y,
  );

const makeAxpyAxmy = () =>
  pointwise(
    {
      isTensor: [true, true, false],
      numOutputs: 2,
      promotionMethods: [
        [0, 1, 'DEFAULT'],
        [0, 1, 'DEFAULT'],
      ],
    },
    (x: number, y: number, alpha: number) => [alpha * x + y, alpha * x - y],
  );

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

// -- FunctionSchema: what pointwise() accepts and refuses -----------------------------------

test('test_pointwise_dynamic.py::test_function_schema_mismatch_input_num1', () => {
  // three inputs (the payload's parameters), one dtype
  refusedNow(
    () =>
      pointwise(
        { isTensor: [true, false, true], dtypes: [null], promotionMethods: [[0, 1, 2, 'DEFAULT']] },
        (x: number, alpha: number, y: number) => x * alpha + y,
      ),
    /dtypes has 1 entries, but the payload takes 3 inputs \(x, alpha, y\)/,
  );
});

test('test_pointwise_dynamic.py::test_function_schema_mismatch_input_num2', () => {
  // FlagGems' num_inputs=2 is the payload's two parameters (an expression's `params`); isTensor lists three
  refusedNow(
    () =>
      pointwise({ params: ['x', 'y'], isTensor: [true, false, true], promotionMethods: [[0, 1, 'DEFAULT']] }, 'x + y'),
    /isTensor has 3 entries, but the payload takes 2 inputs \(x, y\)/,
  );
  // there is no option to say the count besides the payload: `numInputs` is an unknown option
  refusedNow(
    () => pointwise({ numInputs: 2, isTensor: [true, false, true] } as never, (x: number, y: number) => x + y),
    /unknown option 'numInputs'/,
  );
});

test('test_pointwise_dynamic.py::test_function_schema_mismatch_input_num3', () => {
  refusedNow(
    () =>
      pointwise({ dtypes: [null, null, null], promotionMethods: [[0, 1, 'DEFAULT']] }, (x: number, y: number) => x + y),
    /dtypes has 3 entries, but the payload takes 2 inputs \(x, y\)/,
  );
});

test('test_pointwise_dynamic.py::test_function_schema_mismatch_output_num', () => {
  // two outputs, one promotion method
  refusedNow(
    () => pointwise({ numOutputs: 2, promotionMethods: [[0, 'DEFAULT']] }, (x: number) => [x, -x]),
    /promotionMethods has 1 entries, one per output is needed \(2\)/,
  );
  // FlagGems' method (0, 1, 2, "DEFAULT") names inputs a one-input function does not have: refused here too
  refusedNow(
    () => pointwise({ promotionMethods: [[0, 1, 2, 'DEFAULT']] }, (x: number) => x),
    /promotionMethods\[0\] names argument 1, but the inputs are 0 to 0/,
  );
  // and the payload's own count must be numOutputs
  refusedNow(
    () =>
      pointwise(
        {
          numOutputs: 2,
          promotionMethods: [
            [0, 'DEFAULT'],
            [0, 'DEFAULT'],
          ],
        },
        (x: number) => x,
      ),
    /the payload returns 1 output\(s\), but numOutputs is 2/,
  );
});

test('test_pointwise_dynamic.py::test_function_schema_missing_input_info', () => {
  // the payload always says its inputs; one that takes none is refused for that, not for the default promotion
  refusedNow(() => pointwise({ numOutputs: 2 }, () => [1, 2]), /the payload takes no inputs/);
  refusedNow(() => pointwise({}, '1.5'), /the payload takes no inputs/);
});

test('test_pointwise_dynamic.py::test_function_schema_no_outputs1', () => {
  refusedNow(
    () =>
      pointwise(
        { isTensor: [false, false, false], promotionMethods: [] },
        (a: number, b: number, c: number) => a + b + c,
      ),
    /promotionMethods has 0 entries, one per output is needed \(1\)/,
  );
  refusedNow(() => pointwise({ isTensor: [false], promotionMethods: [] }, (_a: number) => []), /returns no outputs/);
});

test('test_pointwise_dynamic.py::test_function_schema_no_outputs2', () => {
  refusedNow(
    () =>
      pointwise(
        { isTensor: [false, false, false], numOutputs: 0, promotionMethods: [] } as never,
        (a: number, b: number, c: number) => a + b + c,
      ),
    /numOutputs must be a positive integer, got 0/,
  );
});

test('test_pointwise_dynamic.py::test_function_schema_illegal_dtypes', () => {
  const payload = (a: number, b: number, c: number) => a + b + c;
  // a dtype is a kind of scalar ('bool', 'int', 'float', 'complex'), a dtype name, or null
  refusedNow(() => pointwise({ dtypes: [0, null, null] as never }, payload), /unknown dtype for input 0 '0'/);
  refusedNow(() => pointwise({ dtypes: [null, false, null] as never }, payload), /unknown dtype for input 1 'false'/);
  refusedNow(() => pointwise({ dtypes: [null, null, 'a'] as never }, payload), /unknown dtype for input 2 'a'/);
  // nor is an isTensor entry anything but a boolean (FlagGems asserts bool there too)
  refusedNow(() => pointwise({ isTensor: [1, 0, 1] as never }, payload), /isTensor\[0\] is 1, not true or false/);
});

for (const device of testDevices()) {
  const on = { device };

  // -- FunctionSchema, where a call shows what the schema says ------------------------------

  test(`${device.name}: test_pointwise_dynamic.py::test_function_schema_with_non_tensor_input`, async () => {
    const fn = pointwise(
      { isTensor: [true, false, true], dtypes: [null, 'float', null], promotionMethods: [[0, 1, 2, 'DEFAULT']] },
      (x: number, alpha: number, y: number) => x * alpha + y,
    );
    assert.is(fn.numInputs, 3);
    assert.is(fn.numOutputs, 1);
    // two input tensors and one output: the kernel's arrays; one scalar, passed by value as `in1`
    const x = tensor([1, 2, 3], undefined, { device, dtype: 'int32' });
    const y = tensor([10, 20, 30], undefined, { device, dtype: 'int32' });
    const { kernel } = fn.plan(x, 2, y);
    const arrays = kernel.args.filter((a) => a.kind === 'global');
    assert.is(arrays.filter((a) => a.isInput).length, 2, 'input tensors');
    assert.is(arrays.filter((a) => a.isOutput).length, 1, 'output tensors');
    assert.equal(
      kernel.args.filter((a) => a.kind === 'value' && /^in\d+$/.test(a.name)).map((a) => a.name),
      ['in1'],
      'the non-tensor input: input 1',
    );
    // input 1 takes no tensor; its dtype 'float' makes a whole number a float (JS has no 2.0), so int32 data give float32
    refusedNow(() => fn(x, y, y), /input 1 \(alpha\) is not a tensor argument/);
    const z = await fn(x, 2, y);
    assert.is(z.dtype, 'float32');
    assertNumbers(await valuesOf(z), [12, 24, 36], 'x * 2 + y');
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_function_schema_missing_output_dtype_promotion_rules`, async () => {
    // no promotionMethods: every input decides, by DEFAULT (FlagGems requires them)
    const add = pointwise({}, (x: number, y: number) => x + y);
    const x = tensor([1, 2, 3], undefined, { device, dtype: 'int32' });
    const y = randn(device, [3], 1);
    const z = await add(x, y.t);
    assert.is(z.dtype, 'float32');
    assertNumbers(
      await valuesOf(z),
      y.v.map((v, k) => f32(k + 1 + v)),
      'int32 + float32',
    );
    // the test's three dtypes for two inputs are still refused
    refusedNow(
      () => pointwise({ dtypes: [null, null, null] }, (a: number, b: number) => a + b),
      /dtypes has 3 entries/,
    );
  });

  for (const [name, make] of [
    [
      'test_function_schema_no_tensor_inputs1',
      () =>
        pointwise(
          { isTensor: [false, false, false], promotionMethods: [[0, 1, 2, 'DEFAULT']] },
          (a: number, b: number, c: number) => a + b * c,
        ),
    ],
    [
      // FlagGems' num_inputs=3 spelt out: an expression's `params`
      'test_function_schema_no_tensor_inputs2',
      () =>
        pointwise(
          { params: ['a', 'b', 'c'], isTensor: [false, false, false], promotionMethods: [[0, 1, 2, 'DEFAULT']] },
          'a + b * c',
        ),
    ],
  ] as const) {
    test(`${device.name}: test_pointwise_dynamic.py::${name}`, async () => {
      // accepted; a call needs a tensor for its device: the output, whose shape is the scalars' []
      const fn = make();
      refusedNow(() => fn(1, 2.5, 3), /needs at least one tensor/);
      const out = empty([], { device, dtype: 'float32' });
      assert.is(await fn(1, 2.5, 3, { out0: out }), out);
      assertNumbers(await valuesOf(out), [8.5], '1 + 2.5 * 3');
      refusedNow(
        () => fn(1, 2.5, 3, { out0: empty([2], on) }),
        /out0 has shape \[2\], but the inputs broadcast to \[\]/,
      );
    });
  }

  test(`${device.name}: test_pointwise_dynamic.py::test_function_schema_multiple_outputs`, async () => {
    const fn = pointwise(
      {
        numOutputs: 2,
        promotionMethods: [
          [0, 1, 2, 'DEFAULT'],
          [0, 1, 'ALWAYS_BOOL'],
        ],
      },
      (x: number, y: number, z: number) => [x * y + z, x < y],
    );
    const x = randn(device, [2, 5], 2);
    const y = randn(device, [5], 3);
    const z = tensor([1, 2], [2, 1], { device, dtype: 'int32' });
    const [fma, less] = await fn(x.t, y.t, z);
    assert.equal([fma.dtype, less.dtype], ['float32', 'bool']);
    const operands = [
      { values: x.v, shape: [2, 5] },
      { values: y.v, shape: [5] },
      { values: [1, 2], shape: [2, 1] },
    ];
    assertNumbers(
      await valuesOf(fma),
      broadcastApply(operands, (a: number, b: number, c: number) => f32(f32(a * b) + c)).values,
      'x * y + z',
      1e-6, // a device may fuse it
    );
    assertNumbers(
      await valuesOf(less),
      broadcastApply(operands, (a: number, b: number) => (a < b ? 1 : 0)).values,
      'x < y',
    );
  });

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
    const v = sample('float16', 2 * 8 * 8 * 8, 32);
    const x = tensor(v, [2, 8, 8, 8], { device, dtype: 'float16' });
    const y = await f(x);
    assert.is(y.dtype, 'float16');
    assertNumbers(
      await valuesOf(y),
      v.map((e) => toDType(2 * e, 'float16')),
      'x * 2 in float16',
    );
    // FlagGems' (2, 1024, 1024, 1024): 2^31 elements, past the int32 indices of Loom's kernels. The input is
    // one element expanded (no memory); the call is refused with its metadata, before the 4 GiB output exists
    let allocated = 0;
    const counting: Device = Object.create(device);
    counting.allocate = (bytes: number) => {
      allocated += bytes;
      return device.allocate(bytes);
    };
    const one = tensor([1], [1, 1, 1, 1], { device: counting, dtype: 'float16' });
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

  // -- concurrency ------------------------------------------------------------------------------

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_with_multithread`, async () => {
    // FlagGems' f_for_concurrency_test: a new function per call, y zeros, alpha 2. JavaScript's calls run in one
    // thread; all 32 are issued before any is awaited, so they are in flight on the device's queues together
    const inputs = axpyInputs(Array.from({ length: 32 }, (_, k) => 500 + k));
    const outs = inputs.map((v) => {
      const x = tensor(Float32Array.from(v), undefined, on);
      return makeAxpy()(x, tensor(new Float32Array(AXPY_INPUT_SIZE), undefined, on), 2.0);
    });
    const results = await Promise.all(outs);
    for (const [k, out] of results.entries())
      assertNumbers(
        await valuesOf(out),
        inputs[k].map((x) => f32(2 * x)),
        `input ${k}`,
      );
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_with_multiprocess`, async () => {
    // four processes at once, each with its own device of this kind, eight inputs each (FlagGems: 32 over 8
    // workers); they share a fresh cache folder, so that the C device's processes compile the same kernel at once
    const cache = mkdtempSync(path.join(tmpdir(), 'loom-flaggems-'));
    try {
      const seeds = Array.from({ length: 4 }, (_, p) => Array.from({ length: 8 }, (_, k) => 600 + 8 * p + k));
      const results = await Promise.all(seeds.map((s) => axpyInChild(device, s, cache)));
      for (const [p, outs] of results.entries()) {
        const inputs = axpyInputs(seeds[p]);
        outs.forEach((out, k) => {
          assertNumbers(
            out,
            inputs[k].map((x) => f32(2 * x)),
            `process ${p}, input ${k}`,
          );
        });
      }
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
}

/** The test backends by their targets' names (test/support/backends.ts). */
const BACKENDS: Record<string, string> = { js: 'cpu', opencl: 'opencl', wgsl: 'webgpu', c: 'c', cuda: 'cuda' };

/** The child process of the multiprocess test: `axpyInThisProcess` of concurrency-child.ts on a device like `device`. */
async function axpyInChild(device: Device, seeds: readonly number[], cache: string): Promise<number[][]> {
  const module = new URL('./concurrency-child.ts', import.meta.url).href;
  const code = `import { axpyInThisProcess } from ${JSON.stringify(module)}; await axpyInThisProcess(); process.exit(0);`;
  // the child makes this device's backend only, and requires it (CI=true would require all the others too)
  const backend = BACKENDS[device.target.name];
  const { CI: _, ...env } = process.env;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=loom-source', '--import', 'tsx', '--input-type=module', '-e', code],
    {
      cwd: fileURLToPath(new URL('../../..', import.meta.url)),
      env: {
        ...env,
        LOOM_BACKENDS: backend,
        LOOM_REQUIRE: backend,
        LOOM_CACHE_DIR: cache,
        FLAGGEMS_PORT_DEVICE: device.name,
        FLAGGEMS_PORT_SEEDS: seeds.join(','),
      },
      maxBuffer: 1 << 24,
    },
  );
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]) as number[][];
}

test.run();
