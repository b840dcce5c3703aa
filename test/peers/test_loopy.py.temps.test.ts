/**
 * Temporaries of run-time size (issue 27, s8-temps): loopy's test_variable_size_temporary
 * in local memory, and precompute into a local array of parametric size, run on every
 * device whose target declares such arrays (the `runtimeSizedArrays` fact: C's
 * variable-length arrays, the CPU device's typed arrays, OpenCL's `__local T *` arguments
 * sized by the host, CUDA's dynamic shared memory: printed code only, no GPU here) against
 * plain JavaScript, and refused before anything runs elsewhere (WGSL). The private variant, as loopy has it, is in
 * test_loopy.py.runtime-sizes.test.ts. Each launch checks the sizes it gives against the
 * device's local and private memory.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  generateCode,
  LoomError,
  makeKernel,
  precompute,
  printExpr,
  run,
  splitIname,
  tagInames,
  targetFacts,
  type Device,
  type LoopKernel,
} from '@loom/core';
import { cTarget } from '@loom/codegen-c';
import { cudaTarget } from '@loom/codegen-cuda';
import { dynamicSharedBytes } from '../../packages/codegen-cuda/src/shared-memory.ts';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { assertClose, randomFloat32, testDevices } from '../support/devices.ts';

/** Whether the device's target declares arrays sized at launch in `space`. */
const sizedAtLaunch = (device: Device, space: 'private' | 'local') =>
  targetFacts(device.target).runtimeSizedArrays.has(space);

/** The run's LoomError, or a failure where it ran or threw something else. */
async function refusal(knl: LoopKernel, device: Device, args: Record<string, unknown>): Promise<string> {
  const e = await run(knl, device, args as never).then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.ok(e instanceof LoomError, `expected a LoomError, got ${String(e)}`);
  return (e as Error).message;
}

/** Plain JS: the sums of the rows of the n by n `a`, in float32 as the kernel adds them. */
const rowSums = (a: Float32Array, n: number) =>
  Array.from({ length: n }, (_, i) => a.subarray(i * n, (i + 1) * n).reduce((s, x) => Math.fround(s + x), 0));

/** loopy's kernel, its rows in work-groups of 4 work-items, each group's 4 rows of a fetched to local memory. */
function localRows(): LoopKernel {
  let knl = addDtypes(makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i] = sum(j, a[i,j])'), { a: 'float32' });
  knl = splitIname(knl, 'i', 4, { outerTag: 'g.0', innerTag: 'l.0' });
  return addPrefetch(knl, 'a', ['i_inner', 'j'], { temporaryAddressSpace: 'local', defaultTag: 'l.auto' });
}

test('test_variable_size_temporary (local): the prefetch of 4 rows is a local array of 4*n elements, a __local argument on OpenCL, a variable-length array in C', () => {
  const knl = localRows();
  const fetch = knl.temporaries.get('a_fetch')!;
  assert.is(fetch.addressSpace, 'local');
  assert.equal(
    fetch.shape.map((e) => printExpr(e)),
    ['4', 'n'],
  );
  // OpenCL C has no variable-length arrays: the host sets the bytes (clSetKernelArg with no value)
  const opencl = generateCode(knl, openclTarget());
  assert.match(opencl.code, /, __local float \*__restrict__ a_fetch\)\n\{/);
  assert.not.match(opencl.code, /__local float a_fetch\[/);
  const local = opencl.kernels[0].parameters.find((p) => p.name === 'a_fetch')!;
  assert.equal([local.kind, printExpr(local.localLength!)], ['local', '4*n']);
  assert.match(generateCode(knl, cTarget()).code, /\bfloat a_fetch\[4 \* n\];/);
  // CUDA: carved out of the block's dynamic shared memory, whose bytes the launch passes
  const cuda = generateCode(knl, cudaTarget());
  assert.match(
    cuda.code,
    /\{\n {2}extern __shared__ __align__\(128\) unsigned char loom_dynamic_shared\[\];\n {2}float \*__restrict__ a_fetch = \(float \*\) \(loom_dynamic_shared \+ 0\);\n/,
  );
  assert.equal(
    cuda.kernels[0].parameters.map((p) => p.kind),
    ['array', 'value', 'array', 'local'],
  );
  // WGSL: a workgroup array whose element count is an override constant, set per launch
  const wgsl = generateCode(knl, wgslTarget()).code;
  assert.match(wgsl, /\noverride loopy_kernel_a_fetch_length: u32;\n/);
  assert.match(wgsl, /\nvar<workgroup> a_fetch: array<f32, loopy_kernel_a_fetch_length>;\n/);
});

test("CUDA: several local arrays sized at launch are carved one after another, each at a multiple of 128 bytes, their total the launch's dynamic shared memory", () => {
  let knl = addDtypes(
    makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', ['twice(j) := 2*a[j]', 'out[i] = sum(j, twice(j) * b[i,j])'].join('\n')),
    { a: 'float32', b: 'float32' },
  );
  knl = splitIname(knl, 'i', 8, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = precompute(knl, 'twice', ['j'], { temporaryAddressSpace: 'local' });
  knl = splitIname(knl, 'j_0', 8, { innerTag: 'l.0' });
  knl = addPrefetch(knl, 'b', ['i_inner', 'j'], { temporaryAddressSpace: 'local', defaultTag: 'l.auto' });
  const code = generateCode(knl, cudaTarget()).code;
  assert.ok(code.includes('float *__restrict__ twice_0 = (float *) (loom_dynamic_shared + 0);'), code);
  assert.ok(
    code.includes('float *__restrict__ b_fetch = (float *) (loom_dynamic_shared + ((4 * m) + 127) / 128 * 128);'),
    code,
  );
  // the device's total: m = 5 floats take 20 bytes, rounded to 128, then 8*5 floats 160, rounded to 256
  assert.is(dynamicSharedBytes([4 * 5, 4 * 8 * 5]), 128 + 256);
});

for (const device of testDevices()) {
  test(`${device.name}: test_variable_size_temporary (local), run at several sizes where the target declares it`, async () => {
    const knl = localRows();
    for (const n of [1, 6, 17]) {
      const a = randomFloat32(n * n, n);
      if (!sizedAtLaunch(device, 'local')) {
        assert.match(await refusal(knl, device, { a, n }), /'a_fetch' in local memory has a size known only at launch/);
        continue;
      }
      const { out } = await run(knl, device, { a, n });
      assertClose(out as Float32Array, rowSums(a, n), `n=${n}`, 1e-5, 1e-5);
    }
  });

  test(`${device.name}: precompute into a local array of m elements (a rule over j), run where the target declares it`, async () => {
    let knl = addDtypes(
      makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', ['twice(j) := 2*a[j]', 'out[i] = sum(j, twice(j) * b[i])'].join('\n')),
      { a: 'float32', b: 'float32' },
    );
    knl = splitIname(knl, 'i', 8, { outerTag: 'g.0', innerTag: 'l.0' });
    // the store over j_0 (m values) in chunks of 8 across the group's work-items
    knl = precompute(knl, 'twice', ['j'], { temporaryAddressSpace: 'local' });
    knl = splitIname(knl, 'j_0', 8, { innerTag: 'l.0' });
    for (const [n, m] of [
      [5, 9],
      [19, 3],
    ]) {
      const a = randomFloat32(m, m);
      const b = randomFloat32(n, n + 1);
      if (!sizedAtLaunch(device, 'local')) {
        assert.match(await refusal(knl, device, { a, b, n, m }), /in local memory has a size known only at launch \(m/);
        continue;
      }
      const { out } = await run(knl, device, { a, b, n, m });
      const expected = Array.from(b, (bi) =>
        a.reduce((s, aj) => Math.fround(s + Math.fround(Math.fround(2 * aj) * bi)), 0),
      );
      assertClose(out as Float32Array, expected, `n=${n}, m=${m}`, 1e-5, 1e-5);
    }
  });
}

for (const device of testDevices().filter((d) => sizedAtLaunch(d, 'local'))) {
  test(`${device.name}: a local array sized at launch past the device's local memory is refused at that launch, naming it and its size`, async () => {
    // 4 rows of n floats in local memory: one more row element than the device's local memory holds
    let rows = addDtypes(makeKernel('{ [i,j]: 0<=i<4 and 0<=j<n }', 'out[i] = sum(j, a[i,j])'), { a: 'float32' });
    rows = addPrefetch(tagInames(rows, { i: 'l.0' }), 'a', ['i', 'j'], {
      temporaryAddressSpace: 'local',
      defaultTag: 'l.auto',
    });
    const n = Math.floor(device.limits.maxLocalMemoryBytes / 16) + 1;
    assert.match(
      await refusal(rows, device, { a: new Float32Array(4 * n), n }),
      new RegExp(
        `local temporaries \\('a_fetch' \\(4\\*n = ${4 * n} elements\\)\\) take ${16 * n} bytes per work-group at this launch, more than the ${device.limits.maxLocalMemoryBytes}`,
      ),
    );
  });
}

for (const device of testDevices().filter((d) => sizedAtLaunch(d, 'private'))) {
  test(`${device.name}: loopy's private n*n array past the device's private memory is refused at that launch, naming it and its size`, async () => {
    let whole = addDtypes(makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i] = sum(j, a[i,j])'), { a: 'float32' });
    whole = addPrefetch(whole, 'a[:,:]', [], { defaultTag: undefined });
    const side = Math.ceil(Math.sqrt(device.limits.maxPrivateMemoryBytes / 4)) + 1;
    assert.match(
      await refusal(whole, device, { a: new Float32Array(side * side), n: side }),
      new RegExp(
        `private temporaries \\('a_fetch' \\(n\\*n = ${side * side} elements\\)[^)]*\\) take \\d+ bytes per work-item at this launch`,
      ),
    );
  });
}

test.run();
