/**
 * A first look at CUDA on this machine, for the GPU machine before anything else: prints what
 * the runtime finds (driver and NVRTC versions, the device, its compute capability and the
 * architecture compiled for), then compiles a hand-written kernel with NVRTC, runs it through
 * the driver API and checks its result in plain JS. Exit code 1 on any failure, with the reason.
 *
 *   node --conditions=loom-source --import tsx bench/cuda-smoke.ts
 *
 * Independent of the CUDA target's printing: a failure here is the runtime's (or the machine's).
 */
import { CudaContext, type CudaBuffer } from '@loom/codegen-cuda';

const SOURCE = `
extern "C" __global__ void scale(float *out, const float *a, float factor, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = factor * a[i];
}
`;

function fail(message: string): never {
  console.error(`cuda-smoke: FAILED: ${message}`);
  process.exit(1);
}

const cuda = CudaContext.open() ?? fail(CudaContext.unavailableReason() ?? 'unknown reason');
const { info } = cuda;
console.log(`driver (CUDA version)   ${info.driverVersion}`);
console.log(`NVRTC                   ${info.nvrtcVersion}`);
console.log(`device ${info.ordinal}                ${info.name}`);
console.log(`compute capability      ${info.computeCapability.join('.')} (compiling for ${info.architecture})`);
console.log(
  `multiprocessors         ${info.multiprocessors}, warp ${info.warpSize}, ${(info.totalMemory / 2 ** 30).toFixed(1)} GiB`,
);
console.log(
  `blocks                  ${info.maxThreadsPerBlock} threads, [${info.maxBlockSizes.join(', ')}]; grid [${info.maxGridSizes.join(', ')}]`,
);
console.log(`shared memory / block   ${info.sharedMemoryPerBlock} bytes`);
console.log(`compile options         ${cuda.compileOptions().join(' ')}`);

try {
  const n = 1 << 20;
  const a = Float32Array.from({ length: n }, (_, k) => Math.sin(k));
  const started = performance.now();
  const module = cuda.buildModule(SOURCE);
  const compiled = performance.now();
  const kernel = module.kernel('scale');
  console.log(
    `NVRTC compile           ${(compiled - started).toFixed(0)} ms; kernel 'scale': ${kernel.registers} registers, ${kernel.parameterSizes ? `parameters of [${kernel.parameterSizes.join(', ')}] bytes` : 'parameter sizes unknown (driver before CUDA 12.4)'}`,
  );
  const input: CudaBuffer = cuda.createBuffer(a.byteLength);
  const output: CudaBuffer = cuda.createBuffer(a.byteLength);
  cuda.write(input, a);
  const buffer = (b: CudaBuffer) => ({ kind: 'buffer' as const, buffer: b });
  cuda.launch(
    module,
    'scale',
    [
      buffer(output),
      buffer(input),
      { kind: 'scalar', dtype: 'float32', value: 3 },
      { kind: 'scalar', dtype: 'int32', value: n },
    ],
    [Math.ceil(n / 256)],
    [256],
  );
  const out = new Float32Array(n);
  cuda.read(output, out);
  const wrong = out.findIndex((x, k) => x !== Math.fround(3 * a[k]));
  if (wrong >= 0) fail(`out[${wrong}] is ${out[wrong]}, expected ${Math.fround(3 * a[wrong])}`);
  console.log(`scale over ${n} floats   correct`);
  cuda.dispose();
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
}
