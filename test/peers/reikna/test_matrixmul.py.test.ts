/**
 * Ports of Reikna's tests/test_linalg/test_matrixmul.py, on every test device against plain JS
 * (Reikna's ref_dot, in doubles): test_shapes (Reikna's sizes, fewer of their combinations: each
 * shape compiles its own kernels), test_transposed, test_dtypes (real and complex64 operands in
 * the four combinations, the output given as Reikna gives it), test_out_arr_shape, and the
 * correctness part of test_performance_shape and test_performance_block_width on small sizes
 * (their timing is bench/computations.ts's); and the matrix product with a scaling and a cast
 * fused in, which stays one kernel.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, generateCode, printExpr, type Device, type DType, type HostArray } from '@loom/core';
import {
  cast,
  computation,
  deviceParameters,
  FLOAT4_SGEMM,
  matrixMul,
  mulConst,
  type MatmulConfig,
  type MatrixMulOptions,
} from '@loom/computation';
import { matmulKernel } from '../../../examples/matmul.ts';
import { assertClose, randomFloat32, supportsDType, testDevices } from '../../support/devices.ts';
import { sizeOf } from '../../support/ndarray.ts';
import { refused } from '../../support/refusals.ts';
import { assertNegligible, matmulRef, testValues, toHost } from '../../support/reikna-values.ts';

/** Reikna's check_errors: a product of test arrays of these shapes and dtypes against ref_dot. */
async function check(
  aShape: readonly number[],
  bShape: readonly number[],
  options: MatrixMulOptions & {
    readonly aDtype?: DType;
    readonly bDtype?: DType;
    /** Asserts on each device whether the kernel loads float4s. */
    readonly float4?: (device: Device) => boolean;
  } = {},
): Promise<void> {
  const { aDtype = 'float32', bDtype = 'float32', float4, ...matmulOptions } = options;
  const a = testValues(aDtype, sizeOf(aShape), sizeOf(aShape));
  const b = testValues(bDtype, sizeOf(bShape), sizeOf(bShape) + 1);
  const expected = matmulRef(a, aShape, b, bShape, options.transposedA, options.transposedB);
  const comp = matrixMul({ dtype: aDtype, shape: aShape }, { dtype: bDtype, shape: bShape }, matmulOptions);
  const outDtype = comp.signature[0].dtype;
  const k = options.transposedA ? aShape.at(-2)! : aShape.at(-1)!;
  for (const device of testDevices()) {
    if (![aDtype, bDtype].every((t) => supportsDType(device, t))) continue;
    const compiled = await comp.compile(device);
    if (float4)
      assert.is(
        vectorLoads(compiled.code()[0]),
        float4(device),
        `${device.name}: float4 loads in ${aShape} x ${bShape}`,
      );
    const { output } = await compiled(undefined, toHost(aDtype, a) as never, toHost(bDtype, b) as never);
    // a sum of k products in float32: Reikna's tolerance, and an absolute one that grows with k
    assertNegligible(output as HostArray, expected, outDtype, device.name, { atol: 1e-6 * k });
  }
}

const SIZES: readonly (readonly [number, number, number])[] = [
  [15, 17, 3],
  [122, 5, 1000],
  [45, 99, 40],
  [56, 78, 44],
];
const BATCHES: readonly (readonly [readonly number[], readonly number[]])[] = [
  [[], []],
  [[], [14]],
  [[35], []],
  [[12], [12]],
];

for (const [aBatch, bBatch] of BATCHES) {
  for (const [aSize, bSize, conv] of [SIZES[0], SIZES[2]]) {
    test(`test_matrixmul.py::test_shapes[(${aBatch}),(${bBatch})-(${aSize}, ${bSize}, ${conv})]`, async () => {
      await check([...aBatch, aSize, conv], [...bBatch, conv, bSize]);
    });
  }
}
test('test_matrixmul.py::test_shapes[(),()-(122, 5, 1000)]', async () => {
  await check([122, 1000], [1000, 5]);
});

test('products of at least 128 x 128 float32 take 128 x 128 tiles of 8 x 8 a work-item, their edges guarded', async () => {
  await check([130, 150], [150, 141]);
  await check([2, 150, 129], [141, 150], { transposedA: true, transposedB: true });
});

for (const ta of [false, true]) {
  for (const tb of [false, true]) {
    test(`test_matrixmul.py::test_transposed[(56, 78, 44)-${ta ? 'A.T' : 'A'}-${tb ? 'B.T' : 'B'}]`, async () => {
      const [aSize, bSize, conv] = SIZES[3];
      // Reikna's batch of 10 on both operands
      await check([10, ...(ta ? [conv, aSize] : [aSize, conv])], [10, ...(tb ? [bSize, conv] : [conv, bSize])], {
        transposedA: ta,
        transposedB: tb,
      });
    });
  }
}

for (const [c1, c2] of [
  [false, false],
  [false, true],
  [true, false],
  [true, true],
] as const) {
  test(`test_matrixmul.py::test_dtypes[${c1 ? 'c' : 'r'}${c2 ? 'c' : 'r'}]`, async () => {
    const [aDtype, bDtype] = [c1 ? 'complex64' : 'float32', c2 ? 'complex64' : 'float32'] as const;
    const product = c1 || c2 ? 'complex64' : 'float32';
    // numpy's result type of the operands, unless the output says otherwise (Reikna's out_arr_t)
    const comp = matrixMul({ dtype: aDtype, shape: [3, 40, 50] }, { dtype: bDtype, shape: [3, 50, 60] });
    assert.equal(
      comp.signature.map((p) => p.dtype),
      [product, aDtype, bDtype],
    );
    // Reikna's (30, 40, 50) x (30, 50, 60) with a batch of 3
    await check([3, 40, 50], [3, 50, 60], { aDtype, bDtype, output: { dtype: product, shape: [3, 40, 60] } });
    // tiles of the default size (64 x 64) hold the complex operands too
    await check([70, 20], [20, 66], { aDtype, bDtype });
  });
}

test('test_matrixmul.py::test_out_arr_shape', async () => {
  const comp = matrixMul({ dtype: 'float32', shape: [1, 22, 33] }, { dtype: 'float32', shape: [2, 3, 33, 44] });
  assert.equal(comp.signature[0].shape, [2, 3, 22, 44]);
  // a vector is a matrix of one row (a) or one column (b), as Reikna takes it
  const vectors = matrixMul({ dtype: 'float32', shape: [33] }, { dtype: 'float32', shape: [33] });
  assert.equal(
    vectors.signature.map((p) => p.shape),
    [
      [1, 1],
      [1, 33],
      [33, 1],
    ],
  );
  // an output with more (or fewer) leading axes of 1 than the product's, the product written there
  await check([5, 7], [7, 6], { output: { dtype: 'float32', shape: [1, 5, 6] } });
  await check([1, 5, 7], [7, 6], { output: { dtype: 'float32', shape: [5, 6] } });
  await refused(
    () =>
      matrixMul(
        { dtype: 'float32', shape: [5, 7] },
        { dtype: 'float32', shape: [7, 6] },
        { output: { dtype: 'float32', shape: [6, 5] } },
      ),
    'does not hold the product',
  );
});

/**
 * Reikna's perf_shape with a memory limit of 2**12 elements, not 2**20: (batch, size) for sizes
 * 16, 32, 64 and 25, each with one of the four transpositions (test_transposed has them all).
 */
const PERF_SHAPES = [16, 32, 64, 25].map((size, k) => [Math.floor(2 ** 12 / size ** 2), size, k % 2, k >> 1] as const);

for (const [batch, size, ta, tb] of PERF_SHAPES) {
  test(`test_matrixmul.py::test_performance_shape[${batch}x${size},${size}-${ta ? 'A.T' : 'A'}-${tb ? 'B.T' : 'B'}]`, async () => {
    const shape = [batch, size, size];
    await check(shape, shape, { transposedA: !!ta, transposedB: !!tb, output: { dtype: 'float32', shape } });
  });
}

for (const blockWidth of [8, 16, 32]) {
  test(`test_matrixmul.py::test_performance_block_width[${blockWidth}x${blockWidth}]`, async () => {
    // Reikna's (4, 512) as (2, 64): blocks of the width asked, one element per work-item
    const shape = [2, 64, 64];
    const comp = matrixMul(
      { dtype: 'float32', shape },
      { dtype: 'float32', shape },
      { blockWidthOverride: blockWidth },
    );
    const a = testValues('float32', sizeOf(shape), 1);
    const b = testValues('float32', sizeOf(shape), 2);
    const expected = matmulRef(a, shape, b, shape);
    for (const device of testDevices()) {
      // Reikna skips a block width the device cannot hold; here it is refused, before anything runs
      if (blockWidth ** 2 > deviceParameters(device).maxWorkGroupSize) {
        await refused(() => comp.compile(device), 'need more work-items or local memory than the device allows');
        continue;
      }
      const compiled = await comp.compile(device);
      const [kernel] = generateCode(compiled.kernels[0], device.target).kernels;
      assert.equal(
        kernel.grid.localSize.slice(0, 2).map(printExpr),
        [String(blockWidth), String(blockWidth)],
        `${device.name}: work-groups of the block width`,
      );
      const { output } = await compiled(undefined, toHost('float32', a) as never, toHost('float32', b) as never);
      assertNegligible(output as HostArray, expected, 'float32', device.name, { atol: 1e-6 * 64 });
    }
  });
}

test('a matrix product with a scaling on its output and a cast on one input is one kernel, and matches plain JS', async () => {
  const [m, k, n] = [130, 70, 90];
  const comp = matrixMul({ dtype: 'float32', shape: [m, k] }, { dtype: 'float32', shape: [k, n] })
    .attach('output', mulConst({ dtype: 'float32' }, 0.5), 'input', { output: 'scaled' })
    .attach('matrix_a', cast({ dtype: 'int32' }, 'float32'), 'output', { input: 'a_int' });
  const a = Int32Array.from({ length: m * k }, (_, x) => ((x * 7) % 13) - 6);
  const b = randomFloat32(k * n, 2);
  const expected = matmulRef(Array.from(a), [m, k], Array.from(b), [k, n]).map((x) => (x as number) * 0.5);
  for (const device of testDevices()) {
    const compiled = await comp.compile(device);
    assert.is(compiled.kernels.length, 1, 'one kernel');
    assert.is(compiled.code().length, 1);
    const { scaled } = await compiled(undefined, a, b);
    assertClose(scaled as Float32Array, expected, device.name, 1e-5, 1e-4);
  }
});

/** Whether a kernel's code loads whole vectors of 4 from its arguments (OpenCL and CUDA: float4/int4, WGSL: vec4). */
function vectorLoads(code: string): boolean {
  return /(float4|int4|vec4<[fiu]32>)/.test(code);
}

/** Where `matrixMul` takes the float4 kernel by default: a target whose vectors hold float32 and need no whole-vector statements. */
function float4Target(device: Device): boolean {
  const params = deviceParameters(device);
  return params.vectorDTypes.includes('float32') && !params.preferVectorStatements;
}

/**
 * examples/matmul.ts's tuned configurations: NVIDIA's OpenCL's and CUDA's (float4 reads of both panels, a's
 * k-major, the staged loop unrolled, the next panels loaded during the product) and Dawn's (scalar; matrixMul's rolled).
 */
const TUNED_FLOAT4: MatmulConfig = FLOAT4_SGEMM;
const TUNED_WEBGPU: MatmulConfig = {
  tileM: 128,
  tileN: 128,
  tileK: 16,
  regM: 8,
  regN: 8,
  layout: 'strided',
  prefetch: true,
  unrollK: false,
};

test('4096 x 4096 x 4096 float32: the kernel is the tuned SGEMM of examples/matmul.ts, per target', async () => {
  const comp = matrixMul({ dtype: 'float32', shape: [4096, 4096] }, { dtype: 'float32', shape: [4096, 4096] });
  const targets = new Set<string>();
  for (const device of testDevices()) {
    const params = deviceParameters(device);
    // the float4 kernel where the target's vectors need no whole-vector statements (OpenCL, CUDA), else Dawn's pick
    const tuned = float4Target(device) ? TUNED_FLOAT4 : params.preferVectorStatements ? TUNED_WEBGPU : undefined;
    // (a device with fewer work-items or less local memory takes smaller tiles)
    const local = tuned === TUNED_FLOAT4 ? 2 * 128 * 32 * 4 : 2 * 128 * 16 * 4;
    if (!tuned || params.maxWorkGroupSize < 256 || params.localMemoryBytes < local) continue;
    const compiled = await comp.compile(device);
    const sgemm = matmulKernel(tuned, { m: 4096, n: 4096, k: 4096 });
    const expected = generateCode(addDtypes(sgemm, { a: 'float32', b: 'float32' }), device.target).code;
    assert.is(compiled.code()[0].replaceAll('matrixmul', 'sgemm'), expected, device.name);
    assert.is(vectorLoads(expected), tuned !== TUNED_WEBGPU, device.name);
    targets.add(device.target.name);
  }
  // OpenCL (PoCL) and WebGPU (lavapipe) are required under CI
  if (process.env.CI) assert.ok(targets.has('opencl') && targets.has('wgsl'), [...targets].join());
});

test('the float4 SGEMM: products whose rows are whole float4s, batches, int32, on every device', async () => {
  await check([130, 68], [68, 132], { float4: float4Target });
  await check([2, 128, 32], [32, 128], { aDtype: 'int32', bDtype: 'int32', float4: float4Target });
});

test('the float4 SGEMM: edges that take the scalar kernel (k or n not a multiple of 4, a transposed operand, mixed dtypes)', async () => {
  const never = () => false;
  await check([128, 34], [34, 128], { float4: never });
  await check([128, 32], [128, 32], { transposedB: true, aDtype: 'int32', float4: never });
});

test('the float4 SGEMM with transformations on its operands and output, and nested in another computation', async () => {
  const [m, k, n] = [128, 32, 128];
  const a = randomFloat32(m * k, 3);
  const b = randomFloat32(k * n, 4);
  const product = matmulRef(Array.from(a), [m, k], Array.from(b), [k, n]) as number[];
  const plain = matrixMul({ dtype: 'float32', shape: [m, k] }, { dtype: 'float32', shape: [k, n] });
  const bHalved = plain.attach('matrix_b', mulConst({ dtype: 'float32' }, 0.5), 'output', { input: 'b_full' });
  const outer = computation({
    name: 'outer',
    params: [
      { name: 'out', dtype: 'float32', shape: [m, n], role: 'o' },
      { name: 'x', dtype: 'float32', shape: [m, k], role: 'i' },
      { name: 'y', dtype: 'float32', shape: [k, n], role: 'i' },
    ],
    buildPlan(plan, _device, out, x, y) {
      plan.computationCall(plain, out, x, y);
    },
  })
    .attach('out', mulConst({ dtype: 'float32' }, 0.5), 'input', { output: 'scaled' })
    .attach('x', mulConst({ dtype: 'float32' }, 1), 'output', { input: 'x_in' });
  const half = product.map((x) => x * 0.5);
  for (const device of testDevices()) {
    for (const [what, comp] of [
      ['b halved', bHalved],
      ['nested, output scaled, x through a transformation', outer],
    ] as const) {
      const compiled = await comp.compile(device);
      assert.is(compiled.kernels.length, 1, `${device.name}, ${what}: one kernel`);
      // the arrays no transformation replaced are still read as float4s
      assert.is(vectorLoads(compiled.code()[0]), float4Target(device), `${device.name}, ${what}: float4 loads`);
      const result = await compiled(undefined, a, b);
      const got = Object.values(result)[0] as Float32Array;
      assertClose(got, half, `${device.name}, ${what}`, 1e-5, 1e-4);
    }
  }
});

test('matrixMul takes a tuned configuration (config), and refuses one the operands cannot take before anything runs', async () => {
  const [m, k, n] = [128, 32, 128];
  const a = testValues('float32', m * k, 1);
  const b = testValues('float32', k * n, 2);
  const expected = matmulRef(a, [m, k], b, [k, n]);
  for (const config of [{ ...TUNED_FLOAT4, tileK: 16, layout: 'blocked' as const }]) {
    const comp = matrixMul({ dtype: 'float32', shape: [m, k] }, { dtype: 'float32', shape: [k, n] }, { config });
    for (const device of testDevices()) {
      const params = deviceParameters(device);
      if (params.maxWorkGroupSize < 256 || params.localMemoryBytes < 33280) continue;
      const { output } = await (await comp.compile(device))(
        undefined,
        toHost('float32', a) as never,
        toHost('float32', b) as never,
      );
      assertNegligible(output as HostArray, expected, 'float32', `${device.name}: ${JSON.stringify(config)}`, {
        atol: 1e-6 * k,
      });
    }
  }
  const [device] = testDevices();
  const f32 = (shape: number[]) => ({ dtype: 'float32' as const, shape });
  await refused(
    () => matrixMul(f32([64, 128]), f32([64, 256]), { config: TUNED_FLOAT4, transposedA: true }).compile(device),
    'need operands stored row by row',
  );
  await refused(
    () => matrixMul(f32([128, 66]), f32([66, 256]), { config: TUNED_FLOAT4 }).compile(device),
    'rows of whole float4s',
  );
  await refused(
    () => matrixMul(f32([128, 64]), f32([64, 256]), { config: TUNED_FLOAT4, tiles: { ...TUNED_FLOAT4 } }),
    'give one of config, tiles and blockWidthOverride',
  );
  await refused(
    () => matrixMul(f32([128, 64]), f32([64, 256]), { config: { ...TUNED_FLOAT4, regN: 6 } }),
    'the register tile must divide the work-group tile',
  );
});

test.run();
