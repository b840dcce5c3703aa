/**
 * `out = x + y` for float32 matrices of rows x cols, three ways for each layout of y:
 *
 *   contiguous   y[i, j]      (same shape and layout as x)
 *   rows         y[j]         (one row, broadcast along the rows: torch's x + y with y of shape (cols,))
 *   transposed   y[j, i]      (y stored cols x rows: torch's x + y.t())
 *
 * and three implementations: `pointwise()` from @loom/elementwise (what users write; in
 * elementwise.ts), a Loom kernel transformed by hand here, and hand-written OpenCL C, CUDA C and WGSL (the
 * hardware's bar, through the same APIs). Sizes are fixed into the kernels (fixParameters), as a
 * tuned kernel would be: no guards, no uniforms.
 */
import {
  addPrefetch,
  fixParameters,
  makeKernel,
  splitIname,
  tagArrayAxes,
  tagInames,
  type LoopKernel,
  type PreparedLaunch,
  type Stmt,
} from '@loom/core';

export type Layout = 'contiguous' | 'rows' | 'transposed';
export const LAYOUTS: readonly Layout[] = ['contiguous', 'rows', 'transposed'];

/** Bytes each layout must move: x and out once, y once (just one row of it when broadcast). */
export function bytesMoved(layout: Layout, rows: number, cols: number): number {
  return 4 * (2 * rows * cols + (layout === 'rows' ? cols : rows * cols));
}

/** The shapes of x, y and out as the kernels see them. */
export function shapes(layout: Layout, rows: number, cols: number, vector: boolean): { x: number[]; y: number[] } {
  const x = vector ? [rows, cols / 4, 4] : [rows, cols];
  if (layout === 'transposed') return { x: [rows, cols], y: [cols, rows] };
  if (layout === 'rows') return { x, y: vector ? [cols / 4, 4] : [cols] };
  return { x, y: x };
}

/** Whether the Loom kernel for this layout reads float4 vectors (OpenCL's and CUDA's `vec` axes; the WGSL rows were measured without). */
export const usesVectors = (layout: Layout, backend: string): boolean =>
  layout !== 'transposed' && (backend === 'opencl' || backend === 'cuda');

/**
 * The Loom kernel, transformed for a GPU. The contiguous and broadcast cases give each
 * work-item one element (or one float4, `vector`), 256 work-items per group along a row and
 * one group row per matrix row, so no grid axis gets too long for WebGPU's 65535 groups.
 * The transposed case goes through local memory in 32 x 32 tiles: y's tile is read along its
 * rows (coalesced) and used along its columns, padded to 33 words a row so that the column
 * reads do not all hit one memory bank.
 */
export function loomKernel(layout: Layout, rows: number, cols: number, vector: boolean, pad = true): LoopKernel {
  if (layout === 'transposed') {
    let knl = makeKernel('{ [i,j]: 0<=i<rows and 0<=j<cols }', 'out[i, j] = x[i, j] + y[j, i]', undefined, {
      name: 'add_transposed',
    });
    knl = fixParameters(knl, { rows, cols });
    knl = splitIname(knl, 'i', 32, { outerTag: 'g.1' });
    knl = splitIname(knl, 'i_inner', 8, { outerTag: 'unr', innerTag: 'l.1' });
    knl = splitIname(knl, 'j', 32, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = addPrefetch(knl, 'y', ['j_inner', 'i_inner_outer', 'i_inner_inner'], { temporaryAddressSpace: 'local' });
    knl = tagInames(knl, { y_dim_1: 'l.0' });
    knl = splitIname(knl, 'y_dim_0', 8, { outerTag: 'unr', innerTag: 'l.1' });
    return pad ? tagArrayAxes(knl, 'y_fetch', 'stride:33,stride:1') : knl;
  }
  const yIndex = layout === 'rows' ? 'j' : 'i, j';
  if (!vector) {
    let knl = makeKernel('{ [i,j]: 0<=i<rows and 0<=j<cols }', `out[i, j] = x[i, j] + y[${yIndex}]`, undefined, {
      name: `add_${layout}`,
    });
    knl = fixParameters(knl, { rows, cols });
    knl = tagInames(knl, { i: 'g.1' });
    return splitIname(knl, 'j', 256, { outerTag: 'g.0', innerTag: 'l.0' });
  }
  // float4: the last axis (4 floats) is a vector lane, unrolled into .s0 ... .s3
  let knl = makeKernel(
    '{ [i,j,k]: 0<=i<rows and 0<=j<cols4 and 0<=k<4 }',
    `out[i, j, k] = x[i, j, k] + y[${yIndex}, k]`,
    undefined,
    { name: `add4_${layout}` },
  );
  knl = fixParameters(knl, { rows, cols4: cols / 4 });
  for (const array of ['x', 'out']) knl = tagArrayAxes(knl, array, 'c,c,vec');
  knl = tagArrayAxes(knl, 'y', layout === 'rows' ? 'c,vec' : 'c,c,vec');
  knl = tagInames(knl, { i: 'g.1', k: 'unr' });
  return splitIname(knl, 'j', Math.min(256, cols / 4), { outerTag: 'g.0', innerTag: 'l.0' });
}

/**
 * Whether the generated code declares the padded tile large enough (33 x 32 words). Until the
 * code generator sizes temporaries by their strides, the padded kernel would write past its
 * tile, and the unpadded one is measured instead.
 */
export function paddingIsSafe(prepared: PreparedLaunch, tile = 'y_fetch'): boolean {
  const length = declaredLength(prepared.code.program.kernels[0].body, tile);
  return length !== undefined && length >= 33 * 31 + 32;
}

function declaredLength(s: Stmt, name: string): number | undefined {
  if (s.kind === 'declare' && s.name === name) return typeof s.length === 'number' ? s.length : undefined;
  if (s.kind === 'block')
    for (const t of s.body) {
      const found = declaredLength(t, name);
      if (found !== undefined) return found;
    }
  return undefined;
}

// --- hand-written -------------------------------------------------------------------------------

/** OpenCL C: one float4 per work-item (a 1-D range), and the classic padded-tile transpose. */
export const OPENCL_SOURCE = `
__kernel void add_contiguous(__global const float4 *x, __global const float4 *y, __global float4 *out) {
  size_t i = get_global_id(0);
  out[i] = x[i] + y[i];
}
__kernel void add_rows(__global const float4 *x, __global const float4 *y, __global float4 *out, int cols4) {
  size_t i = get_global_id(0);
  out[i] = x[i] + y[i % cols4];
}
__kernel void add_transposed(__global const float *x, __global const float *y, __global float *out, int rows, int cols) {
  __local float tile[32][33];
  int i0 = get_group_id(1) * 32, j0 = get_group_id(0) * 32, tx = get_local_id(0), ty = get_local_id(1);
  for (int r = ty; r < 32; r += 8) tile[r][tx] = y[(size_t)(j0 + r) * rows + i0 + tx];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int r = ty; r < 32; r += 8) {
    size_t at = (size_t)(i0 + r) * cols + j0 + tx;
    out[at] = x[at] + tile[tx][r];
  }
}
`;

/**
 * CUDA C, the same three kernels as the OpenCL C above: one float4 per thread over a 1-D grid,
 * and the padded-tile transpose in blocks of 32 x 8 threads. Read-only inputs are `const
 * __restrict__`, as a CUDA programmer writes them (loads through the read-only cache).
 */
export const CUDA_SOURCE = `
__device__ inline float4 add4(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }

extern "C" __global__ void add_contiguous(const float4 *__restrict__ x, const float4 *__restrict__ y, float4 *__restrict__ out) {
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = add4(x[i], y[i]);
}
extern "C" __global__ void add_rows(const float4 *__restrict__ x, const float4 *__restrict__ y, float4 *__restrict__ out, int cols4) {
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = add4(x[i], y[i % cols4]);
}
extern "C" __global__ void add_transposed(const float *__restrict__ x, const float *__restrict__ y, float *__restrict__ out, int rows, int cols) {
  __shared__ float tile[32][33];
  int i0 = blockIdx.y * 32, j0 = blockIdx.x * 32, tx = threadIdx.x, ty = threadIdx.y;
  for (int r = ty; r < 32; r += 8) tile[r][tx] = y[(size_t)(j0 + r) * rows + i0 + tx];
  __syncthreads();
  for (int r = ty; r < 32; r += 8) {
    size_t at = (size_t)(i0 + r) * cols + j0 + tx;
    out[at] = x[at] + tile[tx][r];
  }
}
`;

/**
 * WGSL: vec4 per invocation; the 1-D index is rebuilt from a 2-D grid of groups (one axis
 * holds at most 65535). The broadcast row's length comes from the binding itself.
 */
export const WGSL_SOURCE = `
@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> y: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;

fn flat(wg: vec3<u32>, groups: vec3<u32>, lid: vec3<u32>) -> u32 {
  return (wg.y * groups.x + wg.x) * 256u + lid.x;
}

@compute @workgroup_size(256)
fn add_contiguous(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let i = flat(wg, groups, lid);
  if (i < arrayLength(&out)) { out[i] = x[i] + y[i]; }
}

@compute @workgroup_size(256)
fn add_rows(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let i = flat(wg, groups, lid);
  if (i < arrayLength(&out)) { out[i] = x[i] + y[i % arrayLength(&y)]; }
}
`;

export const WGSL_TRANSPOSED_SOURCE = `
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> y: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
struct Sizes { rows: u32, cols: u32 }
@group(0) @binding(3) var<uniform> sizes: Sizes;
var<workgroup> tile: array<array<f32, 33>, 32>;

@compute @workgroup_size(32, 8)
fn add_transposed(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let i0 = wg.y * 32u;
  let j0 = wg.x * 32u;
  for (var r = lid.y; r < 32u; r += 8u) { tile[r][lid.x] = y[(j0 + r) * sizes.rows + i0 + lid.x]; }
  workgroupBarrier();
  for (var r = lid.y; r < 32u; r += 8u) {
    let at = (i0 + r) * sizes.cols + j0 + lid.x;
    out[at] = x[at] + tile[lid.x][r];
  }
}
`;
