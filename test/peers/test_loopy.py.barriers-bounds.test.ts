/**
 * Ports of loopy's test/test_loopy.py (issue 28, batch A): barriers written in the kernel text
 * (`... lbarrier`, `... gbarrier`, `mem_kind`), the conditions and loop bounds code generation
 * derives from the domains, and the header of a kernel's code (`generateHeader`). Kernels run on
 * every test device against plain JavaScript. Names are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  fixParameters,
  generateCode,
  generateHeader,
  globalArg,
  LoomError,
  makeKernel,
  run,
  splitIname,
  tagInames,
  temporaryVariable,
} from '@loom/core';
import { cTarget } from '@loom/codegen-c';
import { cudaTarget } from '@loom/codegen-cuda';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { randomFloat32, testDevices } from '../support/devices.ts';

test('test_owed_barriers', async () => {
  // a local temporary written and never read owes no barrier
  const build = (insns: string) =>
    tagInames(makeKernel('{[i]: 0<=i<100}', insns, [globalArg('a', { dtype: 'float32', shape: [100] }), '...']), {
      i: 'l.0',
    });
  const knl = build('<float32> z[i] = a[i]');
  const code = generateCode(knl, openclTarget()).code;
  assert.match(code, /__local float z\[100\];\s+z\[lid\(0\)\] = a\[lid\(0\)\];\s+\}/);
  assert.not.match(code, /barrier/);
  // read back by another work-item, it owes one between the write and the read
  const variant = build('<float32> z[i] = a[i] {id=w}\nout[i] = z[99 - i] {dep=w}');
  assert.match(
    generateCode(variant, openclTarget()).code,
    /z\[lid\(0\)\] = a\[lid\(0\)\];\s+barrier\(CLK_LOCAL_MEM_FENCE\)/,
  );
  const a = randomFloat32(100, 1);
  for (const device of testDevices()) {
    assert.equal(await run(knl, device, { a }), {}, device.name);
    const { out } = await run(variant, device, { a });
    assert.equal(Array.from(out as Float32Array), Array.from(a).reverse(), device.name);
  }
});

test('test_literal_local_barrier', async () => {
  const knl = fixParameters(
    makeKernel('{ [i]: 0<=i<n }', 'for i\n    ... lbarrier\nend', undefined, { seqDependencies: true }),
    { n: 128 },
  );
  assert.match(
    generateCode(knl, openclTarget()).code,
    /for \(int i = 0; i <= 127; \+\+i\)\s+barrier\(CLK_LOCAL_MEM_FENCE\);/,
  );
  // the kernel has no arguments: running it is the check that every device compiles the barrier
  for (const device of testDevices()) assert.equal(await run(knl, device, {}), {}, device.name);
});

test('test_local_barrier_mem_kind', () => {
  for (const [memKind, fence] of [
    ['', 'CLK_LOCAL_MEM_FENCE'],
    ['global', 'CLK_GLOBAL_MEM_FENCE'],
    ['local', 'CLK_LOCAL_MEM_FENCE'],
  ]) {
    const insn = `... lbarrier${memKind ? `{mem_kind=${memKind}}` : ''}`;
    const knl = makeKernel('{ [i]: 0<=i<n }', `for i\n    ${insn}\nend`, undefined, { seqDependencies: true });
    assert.ok(generateCode(knl, openclTarget()).code.includes(`barrier(${fence})`), insn);
  }
});

test('test_barrier_in_overridden_get_grid_size_expanded_kernel', async () => {
  // loopy widens the work-group past the iname's 10 values (to 16, with a Python object that
  // overrides its grid sizes) and checks that the barrier still generates. Loom's grid is the
  // domain's extent, which nothing overrides: the port generates and runs the split kernel,
  // whose work-items past the domain are the split's guard
  let knl = makeKernel(
    '{[i]: 0 <= i < 10}',
    `
    for i
          a[i] = i {id=a}
          ... lbarrier {id=barrier}
          b[i + 1] = a[i] {nosync=a}
    end
    `,
    [
      temporaryVariable('a', { dtype: 'float32', shape: [10], addressSpace: 'local' }),
      globalArg('b', { dtype: 'float32', shape: [11] }),
    ],
    { seqDependencies: true },
  );
  knl = splitIname(knl, 'i', 16, { innerTag: 'l.0' });
  assert.match(generateCode(knl, openclTarget()).code, /barrier\(CLK_LOCAL_MEM_FENCE\);/);
  for (const device of testDevices()) {
    const { b } = await run(knl, device, { b: new Float32Array(11).fill(-1) });
    assert.equal(Array.from(b as Float32Array), [-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9], device.name);
  }
});

test('test_inames_conditional_generation', async () => {
  // k and j each hold a global barrier, so each is a host loop around its launches; k's
  // bound depends on i, the group iname, which the k loop's instruction does not use: its
  // launches run over k's projection, 1..8, the j loop's over i's values with some k, 2..9
  const text = (k: string, j: string) => `
    for k
        ... gbarrier
        ${k}
    end
    for j
        ... gbarrier
        ${j}
    end
  `;
  const domain = '{[i,j,k]: 0 < k < i and 0 < j < 10 and 0 < i < 10}';
  const build = (k: string, j: string) =>
    tagInames(makeKernel(domain, text(k, j), ['...'], { seqDependencies: true }), { i: 'g.0' });
  const knl = build('<>tmp1 = 0', '<>tmp2 = i');
  const { hostCode } = generateCode(knl, openclTarget());
  assert.match(hostCode, /for \(k = 1; k <= 8; k\+\+\) \{\s+loopy_kernel\(k\);\s+\/\/ 1 groups of 1/);
  assert.match(hostCode, /for \(j = 1; j <= 9; j\+\+\) \{\s+loopy_kernel_0\(j\);\s+\/\/ 8 groups of 1/);
  // loopy's temporaries are read by nothing: the variant writes what each launch sees
  const variant = build('out1[k] = k', 'out2[i, j] = i');
  for (const device of testDevices()) {
    assert.equal(await run(knl, device, {}), {}, device.name);
    const out = await run(variant, device, { out1: new Int32Array(9).fill(-1), out2: new Int32Array(100).fill(-1) });
    assert.equal(Array.from(out.out1 as Int32Array), [-1, 1, 2, 3, 4, 5, 6, 7, 8], device.name);
    const expected = Array.from({ length: 100 }, (_, x) => {
      const [i, j] = [Math.floor(x / 10), x % 10];
      return i >= 2 && j >= 1 ? i : -1;
    });
    assert.equal(Array.from(out.out2 as Int32Array), expected, device.name);
  }
});

/** loopy's kernel: j runs over 2i-2 < j <= 2i (tight) or 2i-2 <= j <= 2i, within 0..9. */
const tightBounds = (lower: '<' | '<=') => {
  const knl = makeKernel(
    ['{ [i] : 0 <= i <= 5 }', `[i] -> { [j] : 2 * i - 2 ${lower} j <= 2 * i and 0 <= j <= 9 }`],
    'for i\n  for j\n    out[j] = j\n  end\nend',
    undefined,
    { silencedWarnings: ['write_race(insn)'] },
  );
  return splitIname(knl, 'i', 5, { innerTag: 'l.0', outerTag: 'g.0' });
};

test('test_tight_loop_bounds', async () => {
  const knl = tightBounds('<');
  for (const device of testDevices()) {
    const { out } = await run(knl, device, {});
    assert.equal(Array.from(out as Int32Array), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], device.name);
  }
});

test('test_tight_loop_bounds_codegen', () => {
  // j's bounds are the tightest the domain gives for each work-item, with no test of i's
  // upper bound around the loop (a work-item past i = 5 runs no j). loopy splits the bound by
  // cases (`gid(0) == 0 && lid(0) == 0 ? 0 : ...`); Loom writes the same bound with max and min
  const code = generateCode(tightBounds('<='), openclTarget()).code;
  assert.ok(
    code.includes('for (int j = max(10 * gid(0) + 2 * lid(0) - 2, 0); j <= min(10 * gid(0) + 2 * lid(0), 9); ++j)'),
    code,
  );
  assert.not.match(code, /if \(/);
});

test('test_header_extract', () => {
  const knl = fixParameters(
    makeKernel('{[k]: 0<=k<n}', 'for k\n    T[k] = k**2\nend', [
      globalArg('T', { shape: [200], dtype: 'float32' }),
      '...',
    ]),
    { n: 200 },
  );
  // the C device's kernels are static functions called by a launcher of one signature: the
  // header declares the launcher, what a caller links against
  assert.equal(generateHeader(knl, cTarget()), [
    'void loopy_kernel__launch(void *const *args, const int32_t *group_count);',
  ]);
  assert.equal(generateHeader(knl, cudaTarget()), [
    'extern "C" __global__ void __launch_bounds__(1) loopy_kernel(float *__restrict__ T);',
  ]);
  assert.equal(generateHeader(knl, openclTarget()), [
    '__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float *__restrict__ T);',
  ]);
  assert.throws(
    () => generateHeader(knl, wgslTarget()),
    (e: unknown) => e instanceof LoomError && /declares no functions/.test(String(e)),
  );
});

test.run();
