/**
 * `cudaDevice()`: undefined with a one-line reason naming what is missing (the driver's
 * library, NVRTC), never a throw (cuda-runtime.test.ts checks each library's reason, on
 * every machine); and where an NVIDIA GPU is present, Loom's kernels (the
 * tutorial's, a reduction, a tiled matmul through local memory, float64 and int64) give what
 * the CPU device gives. The hand-written kernels of cuda-runtime.test.ts check the runtime
 * beneath, independently of the CUDA target's printing.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addPrefetch,
  generateCode,
  addDtypes,
  LoomError,
  globalArg,
  makeKernel,
  prioritizeLoops,
  run,
  splitIname,
  type Device,
  type HostArray,
  type LoopKernel,
  type RunArgument,
} from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { cudaDevice, cudaUnavailableReason } from '@loom/codegen-cuda';
import { assertClose, randomFloat32 } from './support/devices.ts';
import { cudaDeviceOrSkip } from './support/cuda.ts';
import { tutorialKernels } from './support/golden-kernels.ts';

test('an unknown option is an error, before anything is loaded', () => {
  assert.throws(
    () => cudaDevice({ devcie: 0 } as never),
    (e: unknown) => e instanceof LoomError && /devcie/.test(e.message),
  );
});

const cuda = cudaDeviceOrSkip();
if (!cuda) {
  test('CUDA being unavailable here comes with a one-line reason naming what is missing', () => {
    const reason = cudaUnavailableReason();
    assert.match(reason, /libcuda|NVRTC|CUDA-capable|koffi|cuInit/);
    assert.not.ok(reason.includes('\n'));
  });
} else {
  registerGpuTests(cuda);
}

test.run();

function registerGpuTests(cuda: Device): void {
  const cpu = cpuDevice();

  /** Runs `knl` on both devices and compares every output: exactly, or within `rtol` for floats. */
  const same = async (knl: LoopKernel, args: Record<string, RunArgument>, outputs: readonly string[], rtol = 0) => {
    const expected = await run(knl, cpu, args);
    const actual = await run(knl, cuda, args);
    for (const name of outputs) {
      const e = expected[name] as HostArray;
      const a = actual[name] as HostArray;
      assert.is(a.constructor, e.constructor, name);
      if (rtol === 0 || e instanceof BigInt64Array || e instanceof Int32Array)
        assert.equal(Array.from(a as ArrayLike<unknown>), Array.from(e as ArrayLike<unknown>), name);
      else assertClose(a as ArrayLike<number>, e as ArrayLike<number>, name, rtol, rtol);
    }
  };

  test(`${cuda.name}: limits come from the device`, () => {
    assert.ok(cuda.limits.maxWorkGroupSize >= 512);
    assert.ok(cuda.limits.maxLocalMemoryBytes >= 16 * 1024);
    assert.ok(cuda.limits.maxBufferBytes > 2 ** 28);
  });

  test(`${cuda.name}: the tutorial's kernels`, async () => {
    for (const n of [1, 7, 257]) await same(tutorialKernels.double(), { a: randomFloat32(n, n) }, ['out']);
    await same(tutorialKernels.transposeAndDouble(), { a: randomFloat32(31 * 31, 2) }, ['out']);
    await same(tutorialKernels.temporaries(), { a: randomFloat32(11, 4) }, ['out'], 1e-6);
    await same(
      tutorialKernels.intArithmetic(),
      { a: Int32Array.from([1, -2, 30, 7, -9]), b: Int32Array.from([5, -5, 0, 7, -1]) },
      ['out'],
    );
    await same(tutorialKernels.everyThird(), { n: 20 }, ['out']);
  });

  test(`${cuda.name}: reductions (a matrix-vector product; product, max and min of int32)`, async () => {
    await same(tutorialKernels.matvec(), { A: randomFloat32(33 * 65, 5), x: randomFloat32(65, 6), n: 33 }, ['y'], 1e-5);
    await same(tutorialKernels.intReductions(), { a: Int32Array.from([1, -2, 3, 4, 5, 6, -7, 8, 0, 1, 2, 3]) }, [
      'pr',
      'mx',
      'mn',
    ]);
  });

  test(`${cuda.name}: a tiled matmul through local memory, with barriers`, async () => {
    let mm = makeKernel('{ [i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n }', 'c[i, j] = sum(k, a[i, k]*b[k, j])', undefined, {
      assumptions: 'n >= 1',
    });
    mm = splitIname(mm, 'i', 16, { outerTag: 'g.1', innerTag: 'l.1' });
    mm = splitIname(mm, 'j', 16, { outerTag: 'g.0', innerTag: 'l.0' });
    mm = splitIname(mm, 'k', 16);
    mm = addPrefetch(mm, 'a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' });
    mm = addPrefetch(mm, 'b', ['j_inner', 'k_inner'], { defaultTag: 'l.auto' });
    mm = prioritizeLoops(mm, 'k_outer,k_inner');
    for (const n of [16, 50])
      await same(mm, { a: randomFloat32(n * n, 1), b: randomFloat32(n * n, 2), n }, ['c'], 1e-5);
  });

  test(`${cuda.name}: float64 and int64`, async () => {
    await same(tutorialKernels.float64Sqrt(), { a: Float64Array.from([0, 1, 2, 1e10, 0.5]) }, ['out']);
    const wide = makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] * 3 + b[i] // 7');
    const a = BigInt64Array.from([1n, -(2n ** 40n), 2n ** 50n, -7n, 123456789012n]);
    const b = BigInt64Array.from([2n ** 62n, -(2n ** 62n), 13n, -13n, 0n]);
    await same(wide, { a, b }, ['out']);
  });

  test(`${cuda.name}: a compile error is a LoomError carrying NVRTC's log`, async () => {
    const code = generateCode(addDtypes(tutorialKernels.double(), { a: 'float32' }), cuda.target);
    const broken = { ...code, code: `${code.code}\nthis is not CUDA;\n` };
    await cuda.compile(broken).then(
      () => assert.unreachable('compiled'),
      (e) => {
        assert.instance(e, LoomError);
        assert.match((e as Error).message, /NVRTC_ERROR_COMPILATION[\s\S]*loom\.cu\(\d+\): error/);
      },
    );
  });

  test(`${cuda.name}: a data-dependent index out of bounds is reported under checkBounds`, async () => {
    const gather = makeKernel(
      '{ [i]: 0<=i<n }',
      'out[i] = a[idx[i]]',
      [globalArg('a', { dtype: 'float32', shape: [3] }), '...'],
      { assumptions: 'n >= 1' },
    );
    const args = { a: Float32Array.from([1, 2, 3]), idx: Int32Array.from([0, 5, 2]) };
    await run(gather, cuda, args, { checkBounds: true }).then(
      () => assert.unreachable('ran'),
      (e) => assert.match(String(e), /instruction '[^']+' reads 'a' at index idx\[i\] = 5, outside its extent 3/),
    );
  });

  test(`${cuda.name}: caches and the buffer pool stay bounded and are reused`, async () => {
    const knl = tutorialKernels.double();
    for (let k = 0; k < 3; k++) await run(knl, cuda, { a: randomFloat32(100, k) });
    assert.ok(cuda.cacheStats().modules >= 1);
    assert.ok(cuda.poolStats!().reused >= 1);
  });
}
