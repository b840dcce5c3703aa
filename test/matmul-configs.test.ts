/**
 * examples/matmul.ts's configurations beyond the four its main() checks: the float4 staging
 * loads (vectorWidth 4) on every tile shape, run on every device against a float64 product, and
 * every configuration of the search space generated for OpenCL (the tuner's first backend).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, autotune, DeviceArray, generateCode, LoomError, run, targetFacts } from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { DEFAULT_MATMUL, FLOAT4_SGEMM, tileMatmul } from '@loom/computation';
import {
  configProblem,
  matmulError,
  matmulKernel,
  matmulSearchSpace,
  matmulTuning,
  plainMatmul,
  referenceMatmul,
  type MatmulConfig,
} from '../examples/matmul.ts';
import { randomFloat32, testDevices } from './support/devices.ts';

const vector = (
  tileM: number,
  tileN: number,
  tileK: number,
  regM: number,
  regN: number,
  layout: 'strided' | 'blocked',
): MatmulConfig => ({
  tileM,
  tileN,
  tileK,
  regM,
  regN,
  layout,
  prefetch: true,
  unrollK: false,
  vectorWidth: 4,
});

// a's rows over both work-group axes (guarded when fewer), b's vectors in one or two rounds along l.0, two rounds of rows when tileK is 32
const VECTOR_CONFIGS: MatmulConfig[] = [
  vector(128, 128, 16, 8, 8, 'strided'),
  vector(128, 64, 32, 8, 4, 'blocked'),
  vector(64, 128, 16, 4, 8, 'strided'),
  vector(64, 64, 32, 4, 4, 'strided'),
  vector(64, 64, 16, 8, 8, 'blocked'),
];
// and with float4 reads of b's panel, float4 accumulators and float4 stores of c
const VECTOR_READS: MatmulConfig[] = [
  { ...VECTOR_CONFIGS[0], vectorReads: true },
  { ...VECTOR_CONFIGS[1], vectorReads: true },
  { ...VECTOR_CONFIGS[2], layout: 'blocked', vectorReads: true },
  { ...VECTOR_CONFIGS[3], vectorReads: true, unrollK: true },
  { ...VECTOR_CONFIGS[4], vectorReads: true },
  { ...VECTOR_CONFIGS[0], vectorReads: true, aVectorReads: true },
  { ...VECTOR_CONFIGS[3], layout: 'blocked', vectorReads: true, aVectorReads: true, unrollK: true },
];

// the staging loads pipelined: the next step's panels loaded into registers while this step computes
const PIPELINED: MatmulConfig[] = [
  { ...DEFAULT_MATMUL, pipelined: true },
  {
    tileM: 128,
    tileN: 64,
    tileK: 32,
    regM: 8,
    regN: 4,
    layout: 'blocked',
    prefetch: true,
    unrollK: true,
    pipelined: true,
  },
  { ...VECTOR_CONFIGS[0], pipelined: true },
  { ...VECTOR_READS[1], pipelined: true },
  { ...VECTOR_READS[5], pipelined: true },
  { ...VECTOR_READS[6], pipelined: true },
];

// a's local panel k-major: a blocked register tile reads its a values from consecutive words
const A_TRANSPOSED: MatmulConfig[] = [
  {
    tileM: 64,
    tileN: 64,
    tileK: 16,
    regM: 4,
    regN: 4,
    layout: 'blocked',
    prefetch: true,
    unrollK: false,
    aTransposed: true,
  },
  { ...VECTOR_READS[2], aTransposed: true },
  { ...VECTOR_READS[4], aTransposed: true, pipelined: true },
  { ...VECTOR_CONFIGS[0], aTransposed: true },
];

// both panels read as float4s: a's stored k-major, 4 rows a vector, each work-item's rows in runs of 4
const A_TRANSPOSED_VECTORS: MatmulConfig[] = [
  { ...VECTOR_READS[0], aTransposedVectors: true },
  { ...VECTOR_READS[2], aTransposedVectors: true },
  { ...VECTOR_READS[3], aTransposedVectors: true, pipelined: true },
  { ...VECTOR_READS[3], aTransposedVectors: true, doubleBuffered: true },
  { ...VECTOR_READS[0], aTransposedVectors: true, pipelined: true, doubleBuffered: true },
];

// two buffers a panel: the next step's panels filled while this step computes, one barrier a step
const DOUBLE_BUFFERED: MatmulConfig[] = [
  { ...PIPELINED[0], pipelined: false, doubleBuffered: true },
  { ...PIPELINED[1], tileK: 16, pipelined: false, doubleBuffered: true },
  { ...VECTOR_CONFIGS[2], doubleBuffered: true },
  { ...VECTOR_READS[1], tileK: 16, doubleBuffered: true },
  { ...VECTOR_READS[5], doubleBuffered: true },
  { ...VECTOR_READS[4], aTransposed: true, doubleBuffered: true },
  // and pipelined: registers two steps ahead, the other buffer one
  { ...PIPELINED[0], doubleBuffered: true },
  { ...VECTOR_CONFIGS[2], pipelined: true, doubleBuffered: true },
  { ...VECTOR_READS[5], pipelined: true, doubleBuffered: true },
];

// the panels copied asynchronously (cp.async on CUDA): element by element, or in 16-byte runs of 4 floats (vectorWidth 4)
const ASYNC_COPIES: MatmulConfig[] = [
  { ...PIPELINED[0], pipelined: false, asyncCopies: true },
  { ...PIPELINED[0], pipelined: false, doubleBuffered: true, asyncCopies: true },
  { ...VECTOR_CONFIGS[0], asyncCopies: true },
  { ...VECTOR_CONFIGS[2], doubleBuffered: true, asyncCopies: true },
  { ...VECTOR_CONFIGS[2], aTransposed: true, doubleBuffered: true, asyncCopies: true },
  // b's panel of float4s (vectorReads) filled 16 bytes a copy, lane writes merged
  { ...VECTOR_READS[2], doubleBuffered: true, asyncCopies: true },
  // b's so, a's k-major float4 panel through registers (a copy cannot transpose)
  { ...VECTOR_READS[3], aTransposedVectors: true, asyncCopies: true },
  { ...VECTOR_READS[0], aTransposedVectors: true, doubleBuffered: true, asyncCopies: true },
  { ...VECTOR_READS[0], aTransposedVectors: true, asyncCopies: true, subgroupShape: { rows: 4, columns: 8 } },
];

// a subgroup's run of local ids over a block of the work-group's register tiles (4 x 8: NVIDIA's warps)
const SUBGROUP_SHAPES: MatmulConfig[] = [
  { ...A_TRANSPOSED_VECTORS[0], subgroupShape: { rows: 4, columns: 8 } },
  { ...A_TRANSPOSED_VECTORS[2], subgroupShape: { rows: 8, columns: 4 } },
  { ...A_TRANSPOSED_VECTORS[4], subgroupShape: { rows: 4, columns: 8 } },
  { ...VECTOR_READS[2], subgroupShape: { rows: 4, columns: 8 } },
  { ...PIPELINED[0], tileK: 32, subgroupShape: { rows: 2, columns: 16 } },
  { ...PIPELINED[0], prefetch: false, pipelined: false, subgroupShape: { rows: 4, columns: 8 } },
  // 4 x 16 a work-item: 32 x 8 register tiles, a warp over 4 x 8 of them
  { ...A_TRANSPOSED_VECTORS[0], tileK: 32, regM: 4, regN: 16, pipelined: true, subgroupShape: { rows: 4, columns: 8 } },
];

const clCode = (config: MatmulConfig, n: number) =>
  generateCode(addDtypes(matmulKernel(config, n), { a: 'float32', b: 'float32' }), openclTarget()).code;

test('vectorWidth 4: each work-item loads float4s of a and b into private vectors, stores their lanes in the local panels', () => {
  const code = clCode(VECTOR_CONFIGS[0], 256);
  assert.match(code, '__global float4 const *__restrict__ a');
  assert.match(code, '__global float4 const *__restrict__ b');
  assert.match(code, 'float4 a_vec[1];');
  assert.match(code, 'float4 b_vec[1];');
  // one whole vector a load, then its lanes
  assert.match(code, /b_vec\[0\] = .*b\[1024 \* k_outer \+ 64 \* lid\(1\) \+ 32 \* gid\(0\) \+ lid\(0\)\]/);
  assert.match(code, 'b_fetch[128 * lid(1) + 4 * lid(0) + 3] = b_vec[0].s3;');
  assert.match(code, /a_vec\[0\] = .*a\[8192 \* gid\(1\) \+ 1024 \* lid\(1\) \+ 64 \* lid\(0\) \+ 4 \* k_outer\]/);
  // the product reads the scalar panels as the scalar configuration does: no division of the loop index
  // a's rows padded to 17 words: the 16 rows a half-warp stores land in different banks
  assert.match(code, '__local float a_fetch[2175];');
  assert.match(code, 'a_fetch[272 * lid(1) + 17 * lid(0) + 1] = a_vec[0].s1;');
  assert.match(
    code,
    'acc_k_outer_k_inner[0] = acc_k_outer_k_inner[0] + a_fetch[17 * lid(1) + k_inner] * b_fetch[128 * k_inner + lid(0)];',
  );
  assert.not.match(code, 'loom_floor_div');
  assert.is((code.match(/barrier\(/g) ?? []).length, 2);
});

test("vectorReads: b's panel of float4s, read whole; float4 accumulators; c written as float4s", () => {
  const code = clCode(VECTOR_READS[0], 256);
  assert.match(code, '__global float4 *__restrict__ c');
  assert.match(code, '__local float4 b_fetch[512];');
  assert.match(code, 'float4 acc_k_outer_k_inner[16];');
  assert.match(code, 'b_fetch[32 * lid(1) + lid(0)] = b_vec[0];');
  assert.match(
    code,
    'acc_k_outer_k_inner[1] = acc_k_outer_k_inner[1] + a_fetch[17 * lid(1) + k_inner] * b_fetch[32 * k_inner + lid(0) + 16];',
  );
  assert.match(code, 'c[8192 * gid(1) + 64 * lid(1) + 32 * gid(0) + lid(0) + 16] = acc_k_outer_k_inner[1];');
  // every index proven in bounds: no guard, no division left
  assert.not.match(code, '?');
  assert.not.match(code, 'loom_floor_div');
});

test('aVectorReads: a float4 panel of a too, read four steps of k at a time from one aligned vector', () => {
  const code = clCode(VECTOR_READS[5], 256);
  assert.match(code, '__local float4 a_fetch[512];');
  assert.match(code, 'a_fetch[64 * lid(1) + 4 * lid(0) + 1] = a_vec[0];');
  assert.match(code, 'for (int k_inner_outer = 0; k_inner_outer <= 3; ++k_inner_outer)');
  // the four unrolled steps read one vector's four components, at a row's vector k_inner_outer
  for (const lane of ['s0', 's1', 's2', 's3']) assert.match(code, `a_fetch[4 * lid(1) + k_inner_outer].${lane}`);
  assert.not.match(code, '?');
});

test("aTransposedVectors: a's panel k-major of float4s, 4 rows a vector, read whole like b's; each work-item's rows in runs of 4", () => {
  const code = clCode(A_TRANSPOSED_VECTORS[0], 256);
  assert.match(code, '__local float4 a_fetch[512];');
  // a work-item loads a float4 along k of each of its block's 4 rows, and stores its lanes down the panel's columns
  assert.match(code, 'a_vec[0] = a[8192 * gid(1) + 256 * lid(0) + 4 * k_outer + lid(1)];');
  assert.match(code, '((__local float *) a_fetch)[4 * lid(0) + 512 * lid(1) + 129] = a_vec[0].s1;');
  // the product: one float4 of a's panel holds rows 4 * lid(1) ... 4 * lid(1) + 3 of step k_inner
  for (const lane of ['s0', 's1', 's2', 's3']) assert.match(code, `a_fetch[lid(1) + 32 * k_inner].${lane} * b_fetch[`);
  assert.match(code, 'a_fetch[lid(1) + 32 * k_inner + 16].s3 * b_fetch[32 * k_inner + lid(0) + 16]');
  assert.not.match(code, '?');
  assert.not.match(code, 'loom_floor_div');
  assert.is((code.match(/barrier\(/g) ?? []).length, 2);
  // with asynchronous copies b's panel is copied, a's goes through registers
  const copied = generateCode(
    addDtypes(matmulKernel(ASYNC_COPIES[7], 256), { a: 'float32', b: 'float32' }),
    cudaTarget(),
  ).code;
  assert.match(copied, /loom_copy_async_16\(\(\(float \*\) b_fetch\) \+ \(/);
  assert.not.match(copied, /loom_copy_async_\d+\(\(*\(*(float \*\) )?a_fetch/);
  assert.match(copied, 'float4 const *__restrict__ a');
  assert.match(
    configProblem({ ...VECTOR_CONFIGS[0], aTransposedVectors: true }) ?? '',
    'aTransposedVectors needs vectorReads and regM a multiple of 4',
  );
});

test("subgroupShape: a warp's 32 work-items over 4 x 8 register tiles, their places joined onto l.0 and the blocks onto l.1", () => {
  const code = clCode(SUBGROUP_SHAPES[0], 256);
  assert.match(code, 'reqd_work_group_size(32, 8, 1)');
  // work-item (lid(0), lid(1)): row block 4 * (lid(1) / 2) + lid(0) / 8, column block 8 * (lid(1) % 2) + lid(0) % 8
  assert.match(
    code,
    'acc_k_outer_k_inner[0] + a_fetch[4 * (lid(1) / 2) + lid(0) / 8 + 32 * k_inner].s0 * b_fetch[32 * k_inner + 8 * (lid(1) % 2) + lid(0) % 8];',
  );
  assert.match(
    code,
    'c[8192 * gid(1) + 1024 * (lid(1) / 2) + 256 * (lid(0) / 8) + 32 * gid(0) + 8 * (lid(1) % 2) + lid(0) % 8] = acc_k_outer_k_inner[0];',
  );
  // the panels' fetches spread over the 32 x 8 work-items: a's 32 blocks of 4 rows along l.0
  assert.match(code, 'a_vec[0] = a[8192 * gid(1) + 256 * lid(0) + 4 * k_outer + lid(1)];');
  assert.not.match(code, '?');
  assert.not.match(code, 'loom_floor_div');
  assert.match(
    configProblem({ ...SUBGROUP_SHAPES[0], subgroupShape: { rows: 3, columns: 8 } }) ?? '',
    "subgroupShape 3 x 8 must divide the work-group's 16 x 16 register tiles",
  );
});

test('WGSL: the float4 panels are workgroup arrays of vec4s, read a vector at a time (one index, one clamp for four lanes), the product one fma of vectors', () => {
  const code = generateCode(
    addDtypes(matmulKernel(A_TRANSPOSED_VECTORS[0], 256), { a: 'float32', b: 'float32' }),
    wgslTarget(),
  ).code;
  // in rows of 32 vectors, a step of k a row: the row the k loop's, the columns the work-item's (array-rows.ts)
  assert.match(code, 'var<workgroup> a_fetch: array<array<vec4<f32>, 32>, 16>;');
  assert.match(code, 'var<workgroup> b_fetch: array<array<vec4<f32>, 32>, 16>;');
  // a's lane of the step times b's float4, added to the float4 accumulator
  assert.match(
    code,
    'acc_k_outer_k_inner[0i] = fma(vec4<f32>(a_fetch[k_inner][local_id.y].x), b_fetch[k_inner][local_id.x], acc_k_outer_k_inner[0i]);',
  );
  // b's staged vector stored whole, a's lanes stored down the k-major panel as components
  assert.match(code, /b_fetch\[[^\]]*\]\[local_id\.x\] = b_vec\[0i\];/);
  assert.match(code, /a_fetch\[[^\]]*\]\[local_id\.x\]\.y = a_vec\[0i\]\.x;/);
});

test('pipelined: the loads of step k_outer + 1 go to registers before the product of step k_outer, the first step before the loop', () => {
  const code = clCode(PIPELINED[0], 256);
  assert.match(code, 'float a_fetch_next[4];');
  assert.match(code, 'float b_fetch_next[4];');
  const loop = code.indexOf('for (int k_outer = 0; k_outer <= 15; ++k_outer)');
  const product = code.indexOf('for (int k_inner');
  // the first step, before the loop
  const first = code.indexOf('a_fetch_next[0] = a[16384 * gid(1) + 256 * lid(1) + lid(0)];');
  assert.ok(first >= 0 && first < loop, code);
  // in the loop: the registers stored to the local panel, then the next step's loads while there is one, then the product
  const store = code.indexOf('a_fetch[16 * lid(1) + lid(0)] = a_fetch_next[0];');
  const guard = code.indexOf('if (k_outer <= 14)');
  const next = code.indexOf('a_fetch_next[0] = a[16384 * gid(1) + 256 * lid(1) + 16 * k_outer + lid(0) + 16];');
  const nextB = code.indexOf('b_fetch_next[3] = b[4096 * k_outer + 256 * lid(1) + 64 * gid(0) + lid(0) + 4144];');
  assert.ok(loop < store && store < guard && guard < next && next < product && nextB < product, code);
  // the same two barriers as the plain staging (its race and barrier checks pass on the same local accesses)
  assert.is((code.match(/barrier\(/g) ?? []).length, 2);
  // float4 loads into float4 registers
  const vector = clCode(PIPELINED[4], 256);
  assert.match(vector, 'float4 a_vec_next[');
  assert.match(vector, 'float4 b_vec_next[');
  assert.match(vector, 'if (k_outer <= 14)');
  assert.is((vector.match(/barrier\(/g) ?? []).length, 2);
});

test("asyncCopies: the panels copied into local memory 16 bytes at a time with cp.async, a and b read as floats, a's rows padded to 16-byte lines", () => {
  const code = generateCode(
    addDtypes(matmulKernel(ASYNC_COPIES[3], 256), { a: 'float32', b: 'float32' }),
    cudaTarget(),
  ).code;
  assert.match(code, 'float const *__restrict__ a');
  assert.match(code, 'float const *__restrict__ b');
  assert.not.match(code, 'a_vec');
  // 20-word rows: each 16-byte run of a row lands aligned
  assert.match(code, /__shared__ __align__\(16\) float a_fetch\[\d+\];/);
  assert.match(code, /loom_copy_async_16\(a_fetch \+ \(\d+ \* tIdx\(y\) \+ 20 \* tIdx\(x\)/);
  assert.match(code, /loom_copy_async_16\(b_fetch \+ \(/);
  assert.not.match(code, 'loom_copy_async_4(');
  assert.is((code.match(/__syncthreads\(\)/g) ?? []).length, (code.match(/loom_copy_async_wait\(\);/g) ?? []).length);
  assert.throws(
    () => matmulKernel({ ...VECTOR_READS[5], asyncCopies: true }, 256),
    /asyncCopies copies the panels straight into local memory/,
  );
  // a panel of float4s: its lanes copied 16 bytes at once, through a pointer to its floats
  const vectors = generateCode(
    addDtypes(matmulKernel(ASYNC_COPIES[5], 256), { a: 'float32', b: 'float32' }),
    cudaTarget(),
  ).code;
  assert.match(vectors, /__shared__ __align__\(16\) float4 b_fetch\[\d+\];/);
  assert.match(vectors, /loom_copy_async_16\(\(\(float \*\) b_fetch\) \+ \(/);
  assert.not.match(vectors, 'loom_copy_async_4(');
});

test("doubleBuffered: the panels of the first step before the loop, then per step the next step's fill, the product, one barrier", () => {
  const code = clCode(DOUBLE_BUFFERED[0], 256);
  // two buffers of each 64 x 16 panel
  assert.match(code, '__local float a_fetch[2048];');
  assert.match(code, '__local float b_fetch[2048];');
  const loop = code.indexOf('for (int k_outer_pair = 0; k_outer_pair <= 7; ++k_outer_pair)');
  assert.ok(code.indexOf('a_fetch[16 * lid(1) + lid(0)] = a[16384 * gid(1) + 256 * lid(1) + lid(0)];') < loop, code);
  assert.is((code.slice(0, loop).match(/barrier\(/g) ?? []).length, 1);
  const body = code.slice(loop);
  // step 2p fills buffer 1 with step 2p + 1 and reads buffer 0; step 2p + 1 the other way round
  const fillOne = body.indexOf(
    'a_fetch[16 * lid(1) + lid(0) + 1024] = a[16384 * gid(1) + 256 * lid(1) + 32 * k_outer_pair + lid(0) + 16];',
  );
  const product = body.indexOf('for (int k_inner');
  assert.ok(fillOne > 0 && fillOne < product, body);
  assert.is((body.match(/barrier\(/g) ?? []).length, 2);
  // float4 staging: the private vectors are loaded a step ahead with the fill that stores them
  const staged = clCode(DOUBLE_BUFFERED[3], 256);
  assert.match(staged, '__local float4 b_fetch[');
  assert.is((staged.match(/barrier\(/g) ?? []).length, 3, staged);
});

test("groupsPerComputeUnit: asked of the CUDA compiler as launch bounds, of NVIDIA's OpenCL compiler as a cap on registers; a target that cannot ask refuses it", () => {
  const config: MatmulConfig = { ...A_TRANSPOSED_VECTORS[0], groupsPerComputeUnit: 2 };
  const knl = addDtypes(matmulKernel(config, 256), { a: 'float32', b: 'float32' });
  assert.match(generateCode(knl, cudaTarget()).code, '__launch_bounds__(256, 2)');
  // an OpenCL device whose compiler takes a cap (NVIDIA's: 65536 registers a multiprocessor): 2 x 256 work-items of 128
  const nvidia = generateCode(knl, openclTarget({ registersPerComputeUnit: 65536 }));
  assert.equal(nvidia.extra, { buildOptions: ['-cl-nv-maxrregcount=128'] });
  // three groups: 85 registers, rounded down to 80; no request, no option
  const three = addDtypes(matmulKernel({ ...config, groupsPerComputeUnit: 3 }, 256), { a: 'float32', b: 'float32' });
  assert.equal(generateCode(three, openclTarget({ registersPerComputeUnit: 65536 })).extra, {
    buildOptions: ['-cl-nv-maxrregcount=80'],
  });
  const unasked = addDtypes(matmulKernel(A_TRANSPOSED_VECTORS[0], 256), { a: 'float32', b: 'float32' });
  assert.is(generateCode(unasked, openclTarget({ registersPerComputeUnit: 65536 })).extra, undefined);
  // fewer than 16 registers a work-item: refused
  const crowded = addDtypes(matmulKernel({ ...config, groupsPerComputeUnit: 32 }, 256), { a: 'float32', b: 'float32' });
  assert.throws(
    () => generateCode(crowded, openclTarget({ registersPerComputeUnit: 65536 })),
    (e: unknown) => e instanceof LoomError && /fewer than the 16 a kernel needs/.test((e as Error).message),
  );
  // other OpenCL devices (PoCL here) cannot ask
  assert.throws(
    () => generateCode(knl, openclTarget()),
    (e: unknown) => e instanceof LoomError && /asks for 2 work-groups per compute unit/.test((e as Error).message),
  );
});

test('vectorWidth: the configurations that cannot be built say why', () => {
  const base = VECTOR_CONFIGS[0];
  assert.match(
    configProblem({ ...base, prefetch: false }) ?? '',
    'vectorWidth applies to the staging loads: it needs prefetch',
  );
  assert.match(configProblem({ ...base, vectorWidth: 2 as never }) ?? '', 'vectorWidth must be 1 or 4, not 2');
  assert.throws(() => matmulKernel({ ...base, prefetch: false }, 256), /needs prefetch/);
  assert.match(
    configProblem({ ...base, vectorWidth: 1, vectorReads: true }) ?? '',
    'vectorReads needs vectorWidth 4 and regN a multiple of 4',
  );
  assert.match(configProblem({ ...base, aVectorReads: true }) ?? '', 'aVectorReads needs vectorReads');
  assert.match(
    configProblem({ ...base, vectorWidth: 1, prefetch: false, pipelined: true }) ?? '',
    'pipelined applies to the staging loads: it needs prefetch',
  );
  assert.match(
    configProblem({ ...VECTOR_READS[5], aTransposed: true }) ?? '',
    "aTransposed lays out a's local panel: it needs prefetch, and not aVectorReads",
  );
  assert.match(
    configProblem({ ...base, vectorWidth: 1, prefetch: false, doubleBuffered: true }) ?? '',
    'doubleBuffered doubles the local panels: it needs prefetch',
  );
  assert.throws(
    () => tileMatmul(plainMatmul({ m: 64, n: 64, k: 40 }), { ...base, doubleBuffered: true }, { partialK: true }),
    /a partial last step of k/,
  );
});

test("aTransposed: a's panel column by column, so a blocked work-item's a values are consecutive words", () => {
  const code = clCode(A_TRANSPOSED[0], 256);
  // 64 rows + 4 of padding a column; work-item lid(1) reads rows 4*lid(1) ... 4*lid(1) + 3 of column k_inner
  assert.match(code, '__local float a_fetch[1084];');
  for (const r of ['', ' + 1', ' + 2', ' + 3']) assert.match(code, `a_fetch[4 * lid(1) + 68 * k_inner${r}]`);
});

test('every configuration of the search space builds for OpenCL, the float4 ones with float4 loads', () => {
  const space = matmulSearchSpace();
  assert.ok(space.length <= 82, `${space.length} configurations`);
  assert.is(space[0].vectorWidth, undefined);
  // then both panels read as float4s, the staged loop unrolled, a's loads a step ahead
  assert.ok(space[1].aTransposedVectors && space[1].unrollK && space[1].pipelined, JSON.stringify(space[1]));
  assert.is(new Set(space.map((c) => JSON.stringify(c))).size, space.length, 'no configuration twice');
  // for a target without vector types, the same configurations with the vector ones last
  const scalarFirst = matmulSearchSpace({ vectorTypes: false });
  assert.equal(new Set(scalarFirst.map((c) => JSON.stringify(c))), new Set(space.map((c) => JSON.stringify(c))));
  const firstVector = scalarFirst.findIndex((c) => c.vectorWidth === 4);
  assert.ok(scalarFirst.slice(firstVector).every((c) => c.vectorWidth === 4));
  for (const config of space) {
    assert.is(configProblem(config), undefined, JSON.stringify(config));
    const code = clCode(config, 1024);
    assert.is(code.includes('__global float4 const'), config.vectorWidth === 4, JSON.stringify(config));
  }
});

test('where the device copies asynchronously, the search tries b filled by cp.async beside a k-major a fourth (after the tuned float4 kernel and its subgroups over 4 x 8 blocks), then the float4 panels so filled, double-buffered first, then in 3 and 4 buffers', () => {
  const space = matmulSearchSpace({ asyncCopies: true });
  assert.equal(space[2], { ...FLOAT4_SGEMM, subgroupShape: { rows: 4, columns: 8 } });
  assert.ok(space[3].asyncCopies && space[3].aTransposedVectors, JSON.stringify(space[3]));
  const firstPanels = space.findIndex((c) => c.asyncCopies && !c.aTransposedVectors);
  assert.ok(space[firstPanels].doubleBuffered && space[firstPanels].vectorReads, JSON.stringify(space[firstPanels]));
  const asynchronous = space.filter((c) => c.asyncCopies);
  assert.is(asynchronous.length, 12);
  assert.equal(
    asynchronous.slice(-2).map((c) => c.stages),
    [3, 4],
  );
  // the rest is the space of a device without them, in its order
  assert.equal(
    space.filter((c) => !c.asyncCopies),
    matmulSearchSpace(),
  );
  for (const config of asynchronous) {
    assert.is(configProblem(config), undefined, JSON.stringify(config));
    const knl = addDtypes(matmulKernel(config, 1024), { a: 'float32', b: 'float32' });
    assert.match(generateCode(knl, cudaTarget()).code, 'loom_copy_async_16(', JSON.stringify(config));
  }
});

test('DeviceArray.reshape: the same memory with another shape of as many elements, or a LoomError', async () => {
  const device = testDevices()[0];
  const a = await DeviceArray.from(
    device,
    Float32Array.from({ length: 24 }, (_, k) => k),
    'float32',
    [4, 6],
  );
  const view = a.reshape([4, 2, 3]);
  assert.equal(view.shape, [4, 2, 3]);
  assert.is(view.buffer, a.buffer);
  assert.equal(
    Array.from((await view.toHost()) as Float32Array),
    Array.from({ length: 24 }, (_, k) => k),
  );
  assert.throws(
    () => a.reshape([5, 5]),
    (e: unknown) =>
      e instanceof LoomError &&
      /shape \(5, 5\) does not hold the 24 elements of shape \(4, 6\)/.test((e as Error).message),
  );
  a.release();
});

for (const device of testDevices()) {
  test(`${device.name}: the float4-staged configurations compute a*b`, async () => {
    const n = 128;
    const a = randomFloat32(n * n, 3).map((x) => x - 0.5);
    const b = randomFloat32(n * n, 4).map((x) => x - 0.5);
    const expected = referenceMatmul(a, b, n);
    for (const config of [...VECTOR_CONFIGS, ...VECTOR_READS]) {
      const { c } = await run(matmulKernel(config, n), device, { a, b });
      const error = matmulError(c as Float32Array, expected, n);
      assert.ok(error < 1e-6, `${JSON.stringify(config)}: error ${error}`);
    }
  });

  test(`${device.name}: the pipelined and double-buffered configurations, those with a's panel transposed (scalars or float4s) and those with subgroups over blocks of work-items, compute a*b`, async () => {
    const n = 128;
    const a = randomFloat32(n * n, 5).map((x) => x - 0.5);
    const b = randomFloat32(n * n, 6).map((x) => x - 0.5);
    const expected = referenceMatmul(a, b, n);
    for (const config of [
      ...PIPELINED,
      ...A_TRANSPOSED,
      ...A_TRANSPOSED_VECTORS,
      ...DOUBLE_BUFFERED,
      ...SUBGROUP_SHAPES,
    ]) {
      const { c } = await run(matmulKernel(config, n), device, { a, b });
      const error = matmulError(c as Float32Array, expected, n);
      assert.ok(error < 1e-6, `${JSON.stringify(config)}: error ${error}`);
    }
  });

  test(`${device.name}: the configurations with the panels copied asynchronously compute a*b, or are refused before they run`, async () => {
    const n = 128;
    const a = randomFloat32(n * n, 7).map((x) => x - 0.5);
    const b = randomFloat32(n * n, 8).map((x) => x - 0.5);
    const expected = referenceMatmul(a, b, n);
    for (const config of ASYNC_COPIES) {
      if (!targetFacts(device.target).asyncCopies) {
        await run(matmulKernel(config, n), device, { a, b }).then(
          () => assert.unreachable(`${JSON.stringify(config)} ran on a device without asynchronous copies`),
          (e) => assert.match((e as Error).message, 'asynchronous copy'),
        );
        continue;
      }
      const { c } = await run(matmulKernel(config, n), device, { a, b });
      const error = matmulError(c as Float32Array, expected, n);
      assert.ok(error < 1e-6, `${JSON.stringify(config)}: error ${error}`);
    }
  });

  test(`${device.name}: two work-groups a compute unit asked for: a*b where the device's compiler can be asked (CUDA's launch bounds, NVIDIA's OpenCL's register cap), refused before it runs elsewhere`, async () => {
    const n = 128;
    const a = randomFloat32(n * n, 9).map((x) => x - 0.5);
    const b = randomFloat32(n * n, 10).map((x) => x - 0.5);
    const expected = referenceMatmul(a, b, n);
    for (const config of [
      { ...A_TRANSPOSED_VECTORS[0], groupsPerComputeUnit: 2 },
      { ...SUBGROUP_SHAPES[0], groupsPerComputeUnit: 2 },
    ]) {
      if (!targetFacts(device.target).occupancyHints) {
        await run(matmulKernel(config, n), device, { a, b }).then(
          () => assert.unreachable(`${JSON.stringify(config)} ran on a device that cannot ask for occupancy`),
          (e) => assert.match((e as Error).message, 'work-groups per compute unit'),
        );
        continue;
      }
      const { c } = await run(matmulKernel(config, n), device, { a, b });
      const error = matmulError(c as Float32Array, expected, n);
      assert.ok(error < 1e-6, `${JSON.stringify(config)}: error ${error}`);
    }
  });

  test(`${device.name}: the tuner runs the vector configurations on its shared n x n matrices (seen as float4 rows)`, async () => {
    const space = [
      VECTOR_READS[0],
      VECTOR_CONFIGS[1],
      { ...VECTOR_CONFIGS[1], vectorWidth: 1 as const, tileK: 16, layout: 'strided' as const },
    ];
    const result = await autotune(matmulTuning(128, space), device, { budgetSeconds: 60, fresh: true });
    assert.equal(
      result.trials.map((t) => t.failure),
      [undefined, undefined, undefined],
    );
  });
}

test.run();
