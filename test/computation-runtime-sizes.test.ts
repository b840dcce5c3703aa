/**
 * Library kernels of runtime sizes (`plan.kernelCall(..., { runtimeSizes: true })`): the
 * sizes the arrays' shapes determine are passed at launch, not fixed into the code, so two
 * computations of different sizes run one compiled program. Transpose is built that way.
 * Where a transformation is attached (its shapes concrete), the kernel is specialized as
 * before; results match plain JS on every device either way.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceArray, makeKernel, splitIname, type Device } from '@loom/core';
import { computation, mulConst, transpose, type Computation } from '@loom/computation';
import { testDevices } from './support/devices.ts';
import { sizeOf, testIntegers, transposeRef } from './support/ndarray.ts';

/** The compiled programs one call of `comp` launches on `device`, and its output for `data`. */
async function programsAndOutput(
  comp: Computation,
  device: Device,
  data: Int32Array,
  shape: readonly number[],
): Promise<{ programs: unknown[]; output: number[] }> {
  const compiled = await comp.compile(device);
  const outShape = compiled.signature[0].shape!;
  const input = await DeviceArray.from(device, data, 'int32', shape);
  const output = await DeviceArray.from(device, new Int32Array(sizeOf(outShape)), 'int32', outShape);
  const prepared = await compiled.prepare(output, input);
  try {
    await prepared.launch();
    return { programs: prepared.launches.map((l) => l.compiled), output: [...((await output.toHost()) as Int32Array)] };
  } finally {
    prepared.release();
    input.release();
    output.release();
  }
}

for (const [what, first, second, axes] of [
  ['tiled (the last axis moves)', [300, 500], [257, 1030], undefined],
  ['untiled (the last axis stays)', [40, 30, 7], [9, 65, 13], [1, 0, 2]],
] as const) {
  test(`transposes of two sizes run one compiled program: ${what}`, async () => {
    for (const device of testDevices()) {
      const seen: unknown[][] = [];
      for (const shape of [first, second]) {
        const perm = axes ?? shape.map((_, k) => shape.length - 1 - k);
        const data = testIntegers(Int32Array, sizeOf(shape), sizeOf(shape));
        const { programs, output } = await programsAndOutput(
          transpose({ dtype: 'int32', shape }, axes) as unknown as Computation,
          device,
          data,
          shape,
        );
        assert.equal(output, transposeRef(data, shape, perm), `${device.name}: ${shape.join('x')}`);
        seen.push(programs);
      }
      assert.is(seen[0].length, 1);
      assert.ok(seen[0][0] === seen[1][0], `${device.name}: one program for both sizes`);
    }
  });
}

test('a transformation on a runtime-sized kernel: the kernel is specialized, and right', async () => {
  const shape = [33, 70];
  const data = testIntegers(Int32Array, sizeOf(shape), 5);
  const expected = transposeRef(data, shape, [1, 0]).map((x) => 3 * x);
  const plain = transpose({ dtype: 'int32', shape });
  const tripled = plain.attach('output', mulConst({ dtype: 'int32' }, 3), 'input', { output: 'tripled' });
  // the same transpose nested in another computation, the transformation on the outer one's output
  const outer = computation({
    name: 'outer',
    params: [
      { name: 'out', dtype: 'int32', shape: [70, 33], role: 'o' },
      { name: 'inp', dtype: 'int32', shape, role: 'i' },
    ],
    buildPlan(plan, _device, out, inp) {
      plan.computationCall(plain, out, inp);
    },
  }).attach('out', mulConst({ dtype: 'int32' }, 3), 'input', { output: 'tripled' });
  for (const device of testDevices()) {
    for (const comp of [tripled, outer]) {
      const compiled = await comp.compile(device);
      // the sizes are in the code: no size parameters left
      assert.equal(
        compiled.kernels[0].args.filter((a) => a.kind === 'value').map((a) => a.name),
        [],
      );
      const { tripled: out } = await compiled(undefined, data);
      assert.equal([...(out as Int32Array)], expected, device.name);
    }
    const runtime = await plain.compile(device);
    assert.equal(
      runtime.kernels[0].args.filter((a) => a.kind === 'value').map((a) => a.name),
      ['n0', 'n1'],
    );
  }
});

test('a user kernel called with runtimeSizes: its parameter passed at launch', async () => {
  const knl = splitIname(makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]'), 'i', 64, {
    outerTag: 'g.0',
    innerTag: 'l.0',
  });
  const doubling = (n: number) =>
    computation({
      name: 'doubling',
      params: [
        { name: 'out', dtype: 'int32', shape: [n], role: 'o' },
        { name: 'a', dtype: 'int32', shape: [n], role: 'i' },
      ],
      buildPlan(plan, _device, out, a) {
        plan.kernelCall(knl, { out, a }, { runtimeSizes: true });
      },
    });
  for (const device of testDevices()) {
    const codes: string[][] = [];
    for (const n of [100, 1000]) {
      const data = testIntegers(Int32Array, n, n);
      const compiled = await doubling(n).compile(device);
      const { out } = await compiled(undefined, data);
      assert.equal(
        [...(out as Int32Array)],
        [...data].map((x) => 2 * x),
        device.name,
      );
      codes.push(compiled.code());
    }
    assert.equal(codes[0], codes[1], `${device.name}: the same code for both sizes`);
  }
});

test.run();
