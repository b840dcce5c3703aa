/**
 * Ports of FlagGems' tests/test_pointwise_dynamic.py, its FunctionSchema tests: FlagGems'
 * `pointwise_dynamic` is Loom's `pointwise(options, payload)`, and its FunctionSchema the options
 * (`isTensor`, `dtypes`, `promotionMethods`, `numOutputs`) checked against the payload, whose
 * parameters are the inputs. What `pointwise()` accepts and refuses is checked at once; what the
 * schema says of a call (its tensors, scalars and outputs) by calls on every test device, each
 * element against plain JavaScript. The calls themselves: test_pointwise_dynamic.py.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { empty, pointwise, tensor } from '@loom/elementwise';
import { testDevices } from '../../support/devices.ts';
import { assertNumbers, broadcastApply } from '../../support/elementwise-reference.ts';
import { refusedNow } from '../../support/refusals.ts';
import { randn, valuesOf } from './support.ts';

const f32 = Math.fround;

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
}

test.run();
