/**
 * Ports of loopy's test/test_target.py tests of the CUDA target (names are the originals'):
 * what the generated CUDA C says (loopy's tests print it or look for a substring; these check
 * the parts that make it CUDA), and, where a CUDA device is present (the GPU machine), that
 * the kernel computes what plain JavaScript does. `@loom/codegen-cuda` exports `cudaDevice`
 * once the CUDA runtime is in; until then, and on machines without an NVIDIA driver, only the
 * code is checked, and the file says so once.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  generateCode,
  globalArg,
  makeKernel,
  run,
  splitArrayAxis,
  splitIname,
  tagArrayAxes,
  valueArg,
  type Device,
  type LoopKernel,
} from '@loom/core';
import * as cuda from '@loom/codegen-cuda';
import { randomFloat32 } from '../support/devices.ts';

const cudaCode = (knl: LoopKernel) => generateCode(knl, cuda.cudaTarget()).code;

/** The CUDA device, where the package has one and the machine an NVIDIA driver. */
const device = ((cuda as Record<string, unknown>).cudaDevice as (() => Device | undefined) | undefined)?.();
if (!device) console.log('no CUDA device here: the CUDA tests check the generated code only');

test('test_cuda_target', async () => {
  // loopy declares `GlobalArg("out,a", ...)`: one declaration per name here
  const f32 = (name: string) => globalArg(name, { dtype: 'float32', shape: 'auto' });
  let knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]', [f32('out'), f32('a'), '...']);
  knl = splitIname(knl, 'i', 8, { innerTag: 'l.0' });
  knl = splitIname(knl, 'i_outer', 4, { outerTag: 'g.0', innerTag: 'ilp' });
  knl = addPrefetch(knl, 'a', ['i_inner', 'i_outer_inner'], { defaultTag: 'l.auto' });
  const code = cudaCode(knl);
  // the work-group size is the kernel's 8: l.auto fits the 32-value fetch to it (loopy's
  // a_dim_0_outer, a loop of 4, around a_dim_0_inner on l.0)
  assert.match(code, /^extern "C" __global__ void __launch_bounds__\(8\) loopy_kernel\(/m);
  assert.match(code, /__shared__ float a_fetch\[32\];/);
  assert.match(code, /__syncthreads\(\)/);
  assert.match(code, /#define tIdx\(N\) \(\(int\) threadIdx\.N\)/);
  assert.match(code, /bIdx\(x\)/);
  assert.not.match(code, /__kernel|__global |__local|barrier\(/, 'no OpenCL left');
  if (device) {
    const a = randomFloat32(1000, 1);
    const { out } = await run(knl, device, { a, n: a.length });
    assert.equal(
      Array.from(out as Float32Array),
      Array.from(a, (x) => Math.fround(2 * x)),
    );
  }
});

test('test_cuda_short_vector', async () => {
  let knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]');
  knl = splitIname(knl, 'i', 4, { slabs: [0, 1], innerTag: 'vec' });
  knl = splitArrayAxis(knl, 'a,out', 0, 4);
  knl = tagArrayAxes(knl, 'a,out', 'c,vec'); // loopy's 'C' is Loom's 'c'
  knl = addDtypes(knl, { a: 'float32' });
  const code = cudaCode(knl);
  // CUDA's float4 has no operators: the vector is built from its lanes
  assert.match(code, /float4 const \*__restrict__ a/);
  assert.match(
    code,
    /out\[i_outer\] = make_float4\(__fmul_rn\(2\.0f, [^;]*a\[i_outer\]\.x[^;]*a\[i_outer\]\.y[^;]*a\[i_outer\]\.z[^;]*a\[i_outer\]\.w[^;]*\);/,
  );
  // the last slab's lanes one by one
  assert.match(code, /out\[i_outer\]\.w = /);
  if (device) {
    const a = randomFloat32(64, 2);
    const { out } = await run(knl, device, { a, n: 16 });
    assert.equal(
      Array.from(out as Float32Array),
      Array.from(a, (x) => Math.fround(2 * x)),
    );
  }
});

test('test_no_uint_in_cuda_code', async () => {
  const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] + b[i]'), { a: 'uint32', b: 'uint32' });
  const code = cudaCode(knl);
  assert.not.ok(code.includes('uint'), code);
  assert.match(code, /unsigned int const \*__restrict__ a/);
  if (device) {
    const a = Uint32Array.from([1, 2, 0xffffffff]);
    const b = Uint32Array.from([3, 4, 2]);
    const { out } = await run(knl, device, { a, b });
    assert.equal(Array.from(out as Uint32Array), [4, 6, 1]);
  }
});

test('test_fma_codegen (CUDA)', () => {
  for (const dtype of ['float32', 'float64'] as const) {
    const knl = makeKernel('{[i]: 0<=i<n}', 'out[i] = fma(a[i], b[i], c[i])', [
      ...['a', 'b', 'c', 'out'].map((name) => globalArg(name, { dtype, shape: ['n'] })),
      valueArg('n', 'int32'),
    ]);
    // CUDA's single-precision functions are C's, with the f suffix (loopy expects the same)
    assert.match(
      cudaCode(knl),
      dtype === 'float32' ? /fmaf\(a\[i\], b\[i\], c\[i\]\)/ : /[^f]fma\(a\[i\], b\[i\], c\[i\]\)/,
      dtype,
    );
  }
});

test.run();
