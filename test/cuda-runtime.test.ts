// The CUDA host runtime on its own, with hand-written CUDA C: what runs everywhere (where NVRTC
// and the driver are looked for, the architecture chosen, NVRTC's log read, kernel parameters
// packed in native memory), and, where an NVIDIA GPU is present, compiling and launching
// kernels checked against the same computation in plain JS. Independent of the CUDA target's
// printing: run this first on the GPU machine (LOOM_REQUIRE=cuda) to tell runtime bugs apart.
import koffi from 'koffi';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError } from '@loom/core';
import {
  CudaCompileError,
  CudaContext,
  driverLibraryCandidates,
  nvrtcCandidates,
  type CudaBuffer,
  type CudaKernelArgument,
} from '@loom/codegen-cuda';
import { ParameterArena } from '../packages/codegen-cuda/src/runtime/arguments.ts';
import { firstErrorSpan } from '../packages/codegen-cuda/src/runtime/errors.ts';
import { loadDriverFrom } from '../packages/codegen-cuda/src/runtime/driver.ts';
import { chooseArchitecture, loadNvrtcFrom } from '../packages/codegen-cuda/src/runtime/nvrtc.ts';
import type { CudaFunction } from '../packages/codegen-cuda/src/runtime/module.ts';
import { noteCudaMissing } from './support/cuda.ts';

// --- what runs everywhere ----------------------------------------------------------------------

test('NVRTC is looked for in LOOM_NVRTC alone, else by soname, then in the toolkits', () => {
  assert.equal(nvrtcCandidates({ LOOM_NVRTC: '/opt/x/libnvrtc.so.13', CUDA_HOME: '/c' }), ['/opt/x/libnvrtc.so.13']);
  assert.equal(nvrtcCandidates({ CUDA_HOME: '/c' }), [
    'libnvrtc.so',
    'libnvrtc.so.13',
    'libnvrtc.so.12',
    '/c/lib64/libnvrtc.so',
    '/c/lib64/libnvrtc.so.13',
    '/c/lib64/libnvrtc.so.12',
    '/usr/local/cuda/lib64/libnvrtc.so',
    '/usr/local/cuda/lib64/libnvrtc.so.13',
    '/usr/local/cuda/lib64/libnvrtc.so.12',
  ]);
  assert.equal(driverLibraryCandidates({ LOOM_CUDA_LIBRARY: '/d/libcuda.so.1' }), ['/d/libcuda.so.1']);
  if (process.platform === 'linux') assert.equal(driverLibraryCandidates({}), ['libcuda.so.1', 'libcuda.so']);
});

test('a library that is not there gives a one-line reason naming it, never a throw', () => {
  const driver = loadDriverFrom(['/nonexistent/libcuda.so.1']);
  assert.ok('failure' in driver);
  assert.is(
    driver.failure,
    "no CUDA driver (the NVIDIA driver's CUDA library): could not load /nonexistent/libcuda.so.1 (not found)",
  );
  const nvrtc = loadNvrtcFrom(['/nonexistent/lib64/libnvrtc.so', 'libnvrtc-no-such.so']);
  assert.ok('failure' in nvrtc);
  assert.match(
    nvrtc.failure,
    /^no NVRTC \(CUDA's runtime compiler, in the CUDA toolkit; LOOM_NVRTC names it\): could not load \/nonexistent\/lib64\/libnvrtc\.so \(not found\), libnvrtc-no-such\.so \(not found\)$/,
  );
});

test("the architecture: the device's own cubin, PTX of an older one for a device newer than NVRTC, else a reason", () => {
  const nvrtc = { version: [12, 4] as const, architectures: [50, 52, 60, 70, 75, 80, 86, 89, 90] };
  assert.equal(chooseArchitecture(nvrtc, 9, 0), { option: '--gpu-architecture=sm_90', output: 'cubin' });
  assert.equal(chooseArchitecture(nvrtc, 10, 0), { option: '--gpu-architecture=compute_90', output: 'ptx' });
  assert.equal(chooseArchitecture(nvrtc, 8, 7), { option: '--gpu-architecture=compute_86', output: 'ptx' });
  assert.match(
    chooseArchitecture(nvrtc, 3, 5) as string,
    /^NVRTC 12\.4 does not compile for compute capability 3\.5 \(sm_35\); it knows sm_50, /,
  );
  // an NVRTC that cannot list its architectures is asked for the device's own
  assert.equal(chooseArchitecture({ version: [11, 0], architectures: [] }, 8, 0), {
    option: '--gpu-architecture=sm_80',
    output: 'cubin',
  });
});

test("NVRTC's log points at the offending line and column of the source", () => {
  const source = 'extern "C" __global__ void k(float *out)\n{\n  out[0] = undefined_name + 1.0f;\n}\n';
  const log =
    'loom.cu(3): error: identifier "undefined_name" is undefined\n    out[0] = undefined_name + 1.0f;\n             ^\n\n1 error detected in the compilation of "loom.cu".\n';
  const span = firstErrorSpan(log, source);
  assert.ok(span);
  assert.is(source.slice(span.start, span.start + 'undefined_name'.length), 'undefined_name');
  const error = new CudaCompileError(6, 'NVRTC_ERROR_COMPILATION', log, source, ['--gpu-architecture=sm_90']);
  assert.instance(error, LoomError);
  assert.match(
    error.message,
    /^NVRTC call nvrtcCompileProgram failed: NVRTC_ERROR_COMPILATION\ncompile log:\n {2}loom\.cu\(3\): error: identifier "undefined_name" is undefined/,
  );
  assert.match(error.message, /options: --gpu-architecture=sm_90\nthe first error in the source:/);
  assert.ok(error.message.includes('out[0] = undefined_name + 1.0f;'), error.message);
  // no caret line in the log: the line's first character
  const bare = firstErrorSpan('loom.cu(2): error: expected a ";"\n', 'int a\n  int b\n');
  assert.equal(bare && [bare.start, bare.end], [8, 9]);
  assert.is(firstErrorSpan('all fine\n', source), undefined);
});

test('kernel parameters: one 128-byte native slot per argument (a tensor map the widest), each value in its dtype, checked against the kernel', () => {
  const arena = new ParameterArena(koffi);
  const fn = (sizes: number[] | undefined): CudaFunction => ({
    name: 'k',
    handle: 0n,
    maxThreadsPerBlock: 1024,
    registers: 8,
    staticSharedBytes: 0,
    parameterSizes: sizes,
  });
  const args: CudaKernelArgument[] = [
    { kind: 'scalar', dtype: 'int32', value: -5 },
    { kind: 'scalar', dtype: 'float64', value: 0.1 },
    Object.freeze({ kind: 'scalar', dtype: 'float16', value: 1.5 } as const),
    { kind: 'scalar', dtype: 'bool', value: 1 },
    { kind: 'scalar', dtype: 'int64', value: -(2n ** 40n) },
  ];
  const context = undefined as unknown as CudaContext; // scalars only: no buffer needs a context
  const pointers = arena.pack(context, fn([4, 8, 2, 1, 8]), args);
  const at = (k: number, bytes: number) => koffi.view(pointers[k], bytes);
  assert.is(new Int32Array(at(0, 4))[0], -5);
  assert.is(new Float64Array(at(1, 8))[0], 0.1);
  assert.is(new Uint16Array(at(2, 2))[0], 0x3e00);
  assert.is(new Uint8Array(at(3, 1))[0], 1);
  assert.is(new BigInt64Array(at(4, 8))[0], -(2n ** 40n));
  // a slot a parameter, as wide as the widest (a tensor map's 128 bytes)
  assert.is(pointers[1] - pointers[0], 128n);
  // packing again reuses the arena: the same pointers, new values
  const again = arena.pack(context, fn(undefined), [{ kind: 'scalar', dtype: 'int32', value: 7 }]);
  assert.is(again[0], pointers[0]);
  assert.is(new Int32Array(at(0, 4))[0], 7);
  // many arguments grow it
  const many = Array.from({ length: 40 }, (_, k): CudaKernelArgument => ({ kind: 'scalar', dtype: 'int32', value: k }));
  const grown = arena.pack(context, fn(undefined), many);
  assert.is(new Int32Array(koffi.view(grown[39], 4))[0], 39);
  // a structure by value (a tensor map for bulk copies): its bytes as they are, checked against the parameter
  const map = Uint8Array.from({ length: 128 }, (_, k) => k);
  const packed = arena.pack(context, fn([128, 4]), [{ kind: 'bytes', bytes: map }, args[0]]);
  assert.equal([...new Uint8Array(koffi.view(packed[0], 128))], [...map]);
  assert.is(new Int32Array(koffi.view(packed[1], 4))[0], -5);

  const refused = (sizes: number[] | undefined, list: CudaKernelArgument[], message: RegExp) =>
    assert.throws(
      () => arena.pack(context, fn(sizes), list),
      (e: unknown) => e instanceof LoomError && message.test(e.message),
    );
  refused([4, 4], [args[0]], /^kernel 'k': it takes 2 arguments, 1 given$/);
  refused(
    [8],
    [args[0]],
    /^kernel 'k', argument 0: a int32 scalar of 4 bytes, but the kernel's parameter 0 takes 8 bytes/,
  );
  refused(
    undefined,
    [{ kind: 'scalar', dtype: 'uint8', value: 300 }],
    /^kernel 'k', argument 0: 300 does not fit in uint8/,
  );
  refused(
    undefined,
    [Object.freeze({ kind: 'scalar', dtype: 'int32', value: 2.5 } as const)],
    /^kernel 'k', argument 0: a int32 scalar needs an integer/,
  );
  refused(
    [64],
    [{ kind: 'bytes', bytes: map }],
    /^kernel 'k', argument 0: a structure of 128 bytes, but the kernel's parameter 0 takes 64 bytes/,
  );
  refused(
    undefined,
    [{ kind: 'bytes', bytes: new Uint8Array(129) }],
    /^kernel 'k', argument 0: expected at most 128 bytes/,
  );
  refused(
    undefined,
    [{ kind: 'local', byteLength: 4 } as never],
    /^kernel 'k', argument 0: expected \{ kind: 'buffer' \| 'scalar'/,
  );
  arena.free();
});

// --- on an NVIDIA GPU ----------------------------------------------------------------------------

const cuda = CudaContext.open();
if (!cuda) noteCudaMissing(CudaContext.unavailableReason() ?? 'unknown reason');
else registerGpuTests(cuda);

test.run();

function registerGpuTests(cuda: CudaContext): void {
  const buffer = (b: CudaBuffer): CudaKernelArgument => ({ kind: 'buffer', buffer: b });
  const scalar = (
    dtype: 'int32' | 'float32' | 'float64' | 'int64' | 'bool' | 'int8' | 'float16',
    value: number | bigint,
  ): CudaKernelArgument => ({ kind: 'scalar', dtype, value });
  const upload = (data: ArrayBufferView) => {
    const b = cuda.createBuffer(data.byteLength);
    cuda.write(b, data);
    return b;
  };

  test('the device describes itself', () => {
    const { info } = cuda;
    console.log(`  ${cuda} driver ${info.driverVersion}, NVRTC ${info.nvrtcVersion}, ${info.multiprocessors} SMs`);
    assert.ok(info.name.length > 0);
    assert.ok(info.computeCapability[0] >= 3);
    assert.match(info.architecture, /^(sm|compute)_\d+$/);
    assert.is(info.warpSize, 32);
    assert.ok(info.maxThreadsPerBlock >= 512 && info.maxBlockSizes[0] >= 512 && info.maxGridSizes[0] >= 65535);
    assert.ok(info.sharedMemoryPerBlock >= 16 * 1024 && info.totalMemory > 2 ** 28);
  });

  const SCALE = `
extern "C" __global__ void scale(float *out, const float *a, float factor, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = factor * a[i];
}
`;

  test('a hand-written kernel: out = factor * a, over a grid that does not divide n', () => {
    const n = 1000;
    const a = Float32Array.from({ length: n }, (_, k) => Math.sin(k) * 100);
    const input = upload(a);
    const out = cuda.createBuffer(n * 4);
    const module = cuda.buildModule(SCALE);
    cuda.launch(
      module,
      'scale',
      [buffer(out), buffer(input), scalar('float32', 2.5), scalar('int32', n)],
      [Math.ceil(n / 128)],
      [128],
    );
    const result = new Float32Array(n);
    cuda.read(out, result);
    assert.equal(
      Array.from(result),
      Array.from(a, (x) => Math.fround(2.5 * x)),
    );
    // the same source again is the same module, not a second compile
    assert.is(cuda.buildModule(SCALE), module);
    input.release();
    out.release();
  });

  test('int64, float64, bool, int8 and float16 parameters reach the kernel as given', () => {
    const source = `
#include <cuda_fp16.h>
extern "C" __global__ void mixed(long long *wide, double *d, float *f, long long add, double mul, bool flag, signed char small, __half h)
{
  int i = threadIdx.x;
  wide[i] = wide[i] * 3 + add;
  d[i] = d[i] * mul;
  f[i] = (flag ? 1.0f : -1.0f) * (float) small + __half2float(h);
}
`;
    const wide = BigInt64Array.from([1n, -(2n ** 40n), 2n ** 50n, 7n]);
    const d = Float64Array.from([0.1, 1e300, -3, 2 ** -1000]);
    const wideBuffer = upload(wide);
    const dBuffer = upload(d);
    const f = cuda.createBuffer(16);
    const module = cuda.buildModule(source);
    const add = 2n ** 60n;
    cuda.launch(
      module,
      'mixed',
      [
        buffer(wideBuffer),
        buffer(dBuffer),
        buffer(f),
        scalar('int64', add),
        scalar('float64', 1 / 3),
        scalar('bool', 1),
        scalar('int8', -7),
        scalar('float16', 0.25),
      ],
      [1],
      [4],
    );
    const wideOut = new BigInt64Array(4);
    const dOut = new Float64Array(4);
    const fOut = new Float32Array(4);
    cuda.read(wideBuffer, wideOut);
    cuda.read(dBuffer, dOut);
    cuda.read(f, fOut);
    assert.equal(
      Array.from(wideOut),
      Array.from(wide, (x) => BigInt.asIntN(64, x * 3n + add)),
    );
    assert.equal(
      Array.from(dOut),
      Array.from(d, (x) => x * (1 / 3)),
    );
    assert.equal(Array.from(fOut), [-6.75, -6.75, -6.75, -6.75]);
    for (const b of [wideBuffer, dBuffer, f]) b.release();
  });

  test('a 2-D grid of 2-D blocks sees blockIdx and threadIdx along both axes', () => {
    const source = `
extern "C" __global__ void coords(int *out, int width, int height)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] = 1000 * x + y;
}
`;
    const width = 37;
    const height = 21;
    const out = cuda.createBuffer(width * height * 4);
    cuda.launch(
      cuda.buildModule(source),
      'coords',
      [buffer(out), scalar('int32', width), scalar('int32', height)],
      [Math.ceil(width / 16), Math.ceil(height / 8)],
      [16, 8],
    );
    const result = new Int32Array(width * height);
    cuda.read(out, result);
    assert.equal(
      Array.from(result),
      Array.from({ length: width * height }, (_, k) => 1000 * (k % width) + Math.floor(k / width)),
    );
    out.release();
  });

  test('shared memory and __syncthreads: a sum per block', () => {
    const source = `
extern "C" __global__ void block_sums(float *sums, const float *a)
{
  __shared__ float part[256];
  int t = threadIdx.x;
  part[t] = a[blockIdx.x * 256 + t];
  __syncthreads();
  for (int stride = 128; stride > 0; stride /= 2) {
    if (t < stride) part[t] += part[t + stride];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = part[0];
}
`;
    const blocks = 40;
    const a = Float32Array.from({ length: blocks * 256 }, (_, k) => (k % 17) - 8);
    const input = upload(a);
    const sums = cuda.createBuffer(blocks * 4);
    cuda.launch(cuda.buildModule(source), 'block_sums', [buffer(sums), buffer(input)], [blocks], [256]);
    const result = new Float32Array(blocks);
    cuda.read(sums, result);
    const expected = Array.from({ length: blocks }, (_, b) =>
      a.subarray(b * 256, (b + 1) * 256).reduce((s, x) => s + x, 0),
    );
    assert.equal(Array.from(result), expected);
    input.release();
    sums.release();
  });

  test('an empty grid runs nothing; a write then read of part of a buffer round-trips', () => {
    const data = upload(Int32Array.from([1, 2, 3, 4]));
    cuda.launch(
      cuda.buildModule(SCALE),
      'scale',
      [buffer(data), buffer(data), scalar('float32', 0), scalar('int32', 4)],
      [0],
      [128],
    );
    cuda.write(data, Int32Array.from([9]), 8);
    const back = new Int32Array(4);
    cuda.read(data, back);
    assert.equal(Array.from(back), [1, 2, 9, 4]);
    data.release();
  });

  test('released memory is pooled and handed out again', () => {
    const before = cuda.poolStats();
    const first = cuda.createBuffer(10_000);
    first.release();
    const second = cuda.createBuffer(10_001);
    const after = cuda.poolStats();
    assert.is(after.reused, before.reused + 1);
    assert.ok(first.released && !second.released);
    second.release();
  });

  const refuses = (what: () => unknown, message: RegExp) =>
    assert.throws(what, (e: unknown) => e instanceof LoomError && message.test(e.message), String(message));

  test('a compile error is a CudaCompileError carrying the log and the offending line', () => {
    const source = 'extern "C" __global__ void broken(float *out)\n{\n  out[0] = not_declared * 2.0f;\n}\n';
    try {
      cuda.buildModule(source);
      assert.unreachable('compiled');
    } catch (e) {
      assert.instance(e, CudaCompileError);
      const error = e as CudaCompileError;
      assert.match(error.message, /NVRTC_ERROR_COMPILATION/);
      assert.match(error.message, /loom\.cu\(3\): error: identifier "not_declared" is undefined/);
      assert.ok(error.span && source.slice(error.span.start).startsWith('not_declared'), error.message);
    }
  });

  test('launches the driver would refuse are LoomErrors that say why', () => {
    const module = cuda.buildModule(SCALE);
    const out = cuda.createBuffer(64);
    const args = [buffer(out), buffer(out), scalar('float32', 1), scalar('int32', 16)];
    refuses(() => cuda.launch(module, 'no_such_kernel', args, [1], [16]), /no kernel 'no_such_kernel'.*extern "C"/);
    refuses(() => cuda.launch(module, 'scale', args, [1], [cuda.info.maxThreadsPerBlock * 2]), /exceed|exceeds/);
    refuses(
      () => cuda.launch(module, 'scale', args, [1, cuda.info.maxGridSizes[1] + 1], [16, 1]),
      /blocks along axis 1 \(y\) exceed the device's/,
    );
    refuses(() => cuda.launch(module, 'scale', args, [1], [16, 1]), /differ in axes/);
    if (module.kernel('scale').parameterSizes) {
      refuses(() => cuda.launch(module, 'scale', args.slice(0, 3), [1], [16]), /it takes 4 arguments, 3 given/);
      refuses(
        () => cuda.launch(module, 'scale', [...args.slice(0, 3), scalar('float64', 16)], [1], [16]),
        /parameter 3 takes 4 bytes/,
      );
    }
    refuses(() => cuda.read(out, new Uint8Array(65)), /outside the 64-byte buffer/);
    out.release();
    refuses(() => cuda.launch(module, 'scale', args, [1], [16]), /argument 0: the buffer was released/);
    refuses(() => cuda.write(out, new Uint8Array(4)), /the buffer was released/);
  });

  test('timeQueued: the GPU time of the launches queued in it, between two events, the results intact', () => {
    const n = 1 << 22;
    const a = Float32Array.from({ length: n }, (_, k) => k % 1000);
    const input = upload(a);
    const out = cuda.createBuffer(4 * n);
    const module = cuda.buildModule(SCALE);
    const launch = () =>
      cuda.launch(
        module,
        'scale',
        [buffer(out), buffer(input), scalar('float32', 2), scalar('int32', n)],
        [n / 256],
        [256],
      );
    // the events bracket the work: a finite, positive time; nothing queued, no less than zero
    const once = cuda.timeQueued(launch);
    assert.ok(Number.isFinite(once) && once > 0, String(once));
    assert.ok(cuda.timeQueued(() => [1, 2, 3].forEach(launch)) > 0);
    assert.ok(cuda.timeQueued(() => {}) >= 0);
    const result = new Float32Array(n);
    cuda.read(out, result);
    assert.is(
      result.findIndex((x, k) => x !== 2 * a[k]),
      -1,
    );
    // a queue that throws leaves the context usable, and timing again works
    assert.throws(() =>
      cuda.timeQueued(() => {
        throw new Error('in the queue');
      }),
    );
    assert.ok(cuda.timeQueued(launch) > 0);
    input.release();
    out.release();
  });

  test('a second context on the same device can be disposed; afterwards it refuses every use', () => {
    const other = CudaContext.open();
    assert.ok(other);
    const b = other.createBuffer(16);
    other.buildModule(SCALE);
    assert.is(other.cacheStats().modules, 1);
    other.dispose();
    assert.ok(other.disposed && b.released);
    refuses(() => other.createBuffer(4), /createBuffer: the CudaContext was disposed/);
    refuses(() => other.timeQueued(() => {}), /timeQueued: the CudaContext was disposed/);
    // the first context still works
    const still = upload(Float32Array.from([1, 2]));
    const back = new Float32Array(2);
    cuda.read(still, back);
    assert.equal(Array.from(back), [1, 2]);
    still.release();
  });
}
