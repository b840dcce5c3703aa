/**
 * Ports of loopy's test/test_reduction.py, names and kernels the originals'. Each kernel
 * runs on every test device against plain JavaScript (loopy's auto_test_vs_ref compares
 * with the untransformed kernel; the plain-JS result is that kernel's meaning). Where a
 * test only generated code in loopy ("FIXME: Actually test functionality"), it runs here.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { philoxRef } from '../support/cbrng-ref.ts';
import {
  addDtypes,
  fixParameters,
  generateCode,
  globalArg,
  KernelCheckError,
  makeKernel,
  makeReductionInamesUnique,
  precompute,
  realizeReduction,
  reductionArgToSubstRule,
  run,
  splitIname,
  splitReductionInward,
  splitReductionOutward,
  tagInames,
  valueArg,
  type Device,
  type DType,
  type LoopKernel,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { preprocess } from '../../packages/core/src/preprocess/pipeline.ts';
import { reductionInames } from '../../packages/core/src/kernel/accesses.ts';
import { assertClose, randomFloat32, testDevices } from '../support/devices.ts';

/** Whether `device` holds `dtype`; if not, says so (the one reason a test is skipped on a device). */
function holds(device: Device, dtype: DType, name: string): boolean {
  const why = device.target.unsupportedDType?.(dtype);
  if (why) console.warn(`loom: skipping ${name} on ${device.name}: ${dtype}: ${why}`);
  return !why;
}

const sumOf = (xs: ArrayLike<number>) => Array.from(xs).reduce((s, x) => s + x, 0);

test('test_reduction.py::test_nonsense_reduction', () => {
  const knl = makeKernel('{[i]: 0<=i<100}', 'a[i] = sum(i, 2)', [globalArg('a', { dtype: 'float32', shape: [100] })]);
  assert.throws(
    () => preprocess(knl),
    (e: unknown) => e instanceof KernelCheckError && e.check === 'reduction_within_its_inames',
  );
});

for (const device of testDevices()) {
  const on = device.name;

  test(`${on}: test_reduction.py::test_simple_reduction`, async () => {
    const knl = realizeReduction(makeKernel('{[i]: 0<=i<100}', 'a = sum(i, 2)'));
    const { a } = await run(knl, device, {});
    assert.equal(Array.from(a as Int32Array), [200]);
  });

  test(`${on}: test_reduction.py::test_empty_reduction`, async () => {
    const knl = makeKernel(['{[i]: 0<=i<20}', '[i] -> {[j]: 0<=j<0}'], 'a[i] = sum(j, j)');
    const { a } = await run(knl, device, {});
    assert.equal(Array.from(a as Int32Array), new Array(20).fill(0));
  });

  test(`${on}: test_reduction.py::test_nested_dependent_reduction`, async () => {
    const knl = makeKernel(
      ['{[i]: 0<=i<n}', '{[j]: 0<=j<i+sumlen}'],
      ['<> sumlen = ell[i]', 'a[i] = sum(j, j)'],
      [
        valueArg('n', 'int32'),
        globalArg('a', { dtype: 'int32', shape: ['n'] }),
        globalArg('ell', { dtype: 'int32', shape: ['n'] }),
      ],
    );
    const n = 330;
    const ell = Int32Array.from({ length: n }, (_, k) => k);
    const { a } = await run(knl, device, { ell, n });
    assert.equal(
      Array.from(a as Int32Array),
      Array.from(ell, (l) => ((2 * l - 1) * 2 * l) / 2),
    );
  });

  const boxes = Int32Array.from([3, 0, 5, 1, 4]);

  test(`${on}: test_reduction.py::test_multi_nested_dependent_reduction`, async () => {
    const knl = makeKernel(
      ['{[itgt]: 0 <= itgt < ntgts}', '{[isrc_box]: 0 <= isrc_box < nboxes}', '{[isrc]: 0 <= isrc < npart}'],
      `
      for itgt
        for isrc_box
          <> npart = nparticles_per_box[isrc_box]
        end
        a[itgt] = sum((isrc_box, isrc), 1)
      end
      `,
      [
        valueArg('n', 'int32'),
        globalArg('a', { dtype: 'int32', shape: ['n'] }),
        globalArg('nparticles_per_box', { dtype: 'int32', shape: ['nboxes'] }),
        valueArg('ntgts', 'int32'),
        valueArg('nboxes', 'int32'),
      ],
      { assumptions: 'ntgts>=1' },
    );
    const ntgts = 4;
    const { a } = await run(knl, device, { n: ntgts, ntgts, nboxes: boxes.length, nparticles_per_box: boxes });
    assert.equal(Array.from(a as Int32Array), new Array(ntgts).fill(sumOf(boxes)));
  });

  test(`${on}: test_reduction.py::test_recursive_nested_dependent_reduction`, async () => {
    const knl = makeKernel(
      ['{[itgt]: 0 <= itgt < ntgts}', '{[isrc_box]: 0 <= isrc_box < nboxes}', '{[isrc]: 0 <= isrc < npart}'],
      `
      for itgt
        for isrc_box
          <> npart = nparticles_per_box[isrc_box]
          <> boxsum = sum(isrc, isrc+isrc_box+itgt)
        end
        a[itgt] = sum(isrc_box, boxsum)
      end
      `,
      [
        valueArg('n', 'int32'),
        globalArg('a', { dtype: 'int32', shape: ['n'] }),
        globalArg('nparticles_per_box', { dtype: 'int32', shape: ['nboxes'] }),
        valueArg('ntgts', 'int32'),
        valueArg('nboxes', 'int32'),
      ],
      { assumptions: 'ntgts>=1' },
    );
    const ntgts = 4;
    const expected = Array.from({ length: ntgts }, (_, t) => {
      let total = 0;
      boxes.forEach((count, box) => {
        for (let s = 0; s < count; s++) total += s + box + t;
      });
      return total;
    });
    const { a } = await run(knl, device, { n: ntgts, ntgts, nboxes: boxes.length, nparticles_per_box: boxes });
    assert.equal(Array.from(a as Int32Array), expected);
  });

  for (const size of [128, 5, 113, 67, 1]) {
    test(`${on}: test_reduction.py::test_local_parallel_reduction[${size}]`, async () => {
      const knl = fixParameters(makeKernel('{[i, j]: 0 <= i < n and 0 <= j < 5}', 'z[j] = sum(i, i+j)'), { n: size });
      const expected = Array.from({ length: 5 }, (_, j) => (size * (size - 1)) / 2 + size * j);
      const variants: Record<string, Record<string, string>> = {
        variant0: { i: 'l.0' },
        variant1: { i: 'l.0', j: 'l.1' },
        variant2: { i: 'l.0', j: 'g.0' },
      };
      for (const [name, tags] of Object.entries(variants)) {
        const { z } = await run(tagInames(knl, tags), device, {});
        assert.equal(Array.from(z as Int32Array), expected, name);
      }
    });
  }

  // As loopy: n is passed at run time, and one kernel serves every size. The precompute stores
  // one sum per block of 2560 in a global temporary of floor((n-1)/2560)+1 cells; 1000 < 2560
  // values make one block, the larger sizes end in a partial block, whose sum in the store must
  // stop at n (its reduction's domain is tied to i_outer, which the store replaces).
  const globalParallelReduction = (() => {
    let knl = makeKernel('{[i]: 0 <= i < n }', 'z[0] = sum(i, a[i])');
    knl = addDtypes(knl, { a: 'float32' });
    const gsize = 128;
    knl = splitIname(knl, 'i', gsize * 20);
    knl = splitIname(knl, 'i_inner', gsize, { innerTag: 'l.0' });
    knl = splitReductionOutward(knl, 'i_outer');
    knl = splitReductionInward(knl, 'i_inner_outer');
    knl = reductionArgToSubstRule(knl, 'i_outer');
    // l.auto leaves i_outer_0 a loop, as loopy's assign_automatic_axes leaves an iname of
    // parametric length, so it can be tagged g.0 below
    knl = precompute(knl, 'red_i_outer_arg', 'i_outer', {
      temporaryAddressSpace: 'global',
      defaultTag: 'l.auto',
    });
    knl = realizeReduction(knl);
    return tagInames(knl, { i_outer_0: 'g.0' });
  })();
  for (const size of [1000, 2560, 2561, 100_000, 1_234_567])
    test(`${on}: test_reduction.py::test_global_parallel_reduction[${size}]`, async () => {
      const knl = globalParallelReduction;
      // (loopy then adds a dependency of the i_outer accumulator on the precompute's global
      // barrier; Loom initializes an accumulator after the global barriers its instruction waits for)
      assert.ok(
        knl.instructions.some(
          (i) => i.id === 'red_i_outer_arg_barrier' && i.kind === 'barrier' && i.barrierScope === 'global',
        ),
      );
      const a = randomFloat32(size, 7);
      const { z } = await run(knl, device, { a, n: size });
      assertClose(z as Float32Array, [sumOf(a)], 'z', 1e-5, 1e-5);
    });

  test(`${on}: test_reduction.py::test_global_mc_parallel_reduction[1000]`, async () => {
    // loopy's kernel: the values drawn with philox4x32_f32 (Random123). (loopy then stores the
    // per-group sums with precompute into a global temporary, which Loom's precompute cannot do
    // for a rule reading a temporary written in the swept loop: that part is
    // test_global_parallel_reduction's.)
    const size = 1000;
    let knl = makeKernel(
      '{[i]: 0 <= i < n }',
      `
      for i
        <> key = make_uint2(i, 324830944)  {inames=i}
        <> ctr = make_uint4(0, 1, 2, 3)  {inames=i,id=init_ctr}
        <> vals, ctr = philox4x32_f32(ctr, key)  {dep=init_ctr}
      end
      z = sum(i, vals.s0 + vals.s1 + vals.s2 + vals.s3)
    `,
    );
    knl = fixParameters(knl, { n: size });
    const gsize = 128;
    knl = splitIname(knl, 'i', gsize * 20);
    knl = splitIname(knl, 'i_inner', gsize, { outerTag: 'l.0' });
    knl = splitReductionInward(knl, 'i_inner_inner');
    knl = splitReductionInward(knl, 'i_inner_outer');
    // each i's four words of Philox-4x32-10, as floats in [0, 1] (the plain-JS reference)
    const values = Array.from({ length: size }, (_, i) =>
      philoxRef(32, 4, [0n, 1n, 2n, 3n], [BigInt(i), 324830944n])
        .map((w) => Math.fround(Math.fround(Number(w)) * 2 ** -32))
        .reduce((a, b) => Math.fround(a + b), 0),
    );
    const { z } = await run(knl, device, {});
    assertClose(z as Float32Array, [sumOf(values)], 'z', 1e-6, 1e-4);
  });

  test(`${on}: test_reduction.py::test_argmax`, async () => {
    const n = 10000;
    const knl = addDtypes(makeKernel(`{[i]: 0<=i<${n}}`, 'max_val, max_idx = argmax(i, abs(a[i]), i)'), {
      a: 'float32',
    });
    const a = randomFloat32(n, 42);
    const { max_val, max_idx } = await run(knl, device, { a });
    const abs = Array.from(a, Math.abs);
    const best = Math.max(...abs);
    assert.is((max_val as Float32Array)[0], best);
    assert.is((max_idx as Int32Array)[0], abs.indexOf(best));
  });

  test(`${on}: test_reduction.py::test_simul_reduce`, async () => {
    const n = 20;
    const knl = makeKernel(
      '{[i,j]: 0<=i,j<n }',
      ['a = simul_reduce(sum, (i,j), i*j)', 'b = simul_reduce(sum, i, simul_reduce(sum, j, i*j))'],
      undefined,
      { assumptions: 'n>=1' },
    );
    const { a, b } = await run(knl, device, { n });
    const ref = ((n * (n - 1)) / 2) ** 2;
    assert.equal([(a as Int32Array)[0], (b as Int32Array)[0]], [ref, ref]);
  });

  const library: Record<string, (xs: number[]) => number> = {
    sum: (xs) => xs.reduce((s, x) => s + x, 0),
    product: (xs) => xs.reduce((s, x) => s * x, 1),
    min: (xs) => Math.min(...xs),
    max: (xs) => Math.max(...xs),
  };
  for (const [op, reference] of Object.entries(library)) {
    test(`${on}: test_reduction.py::test_reduction_library[${op}]`, async () => {
      if (!holds(device, 'float64', `test_reduction_library[${op}]`)) return;
      const knl = makeKernel(
        '{[i,j]: 0<=i<n and 0<=j<m }',
        `res[i] = reduce(${op}, j, a[i,j])`,
        [globalArg('a', { dtype: 'float64', shape: ['n', 'm'] }), '...'],
        {
          assumptions: 'n>=1',
        },
      );
      const [n, m] = [20, 10];
      const a = Float64Array.from(randomFloat32(n * m, 42));
      const { res } = await run(knl, device, { a, n, m });
      const expected = Array.from({ length: n }, (_, i) => reference(Array.from(a.subarray(i * m, (i + 1) * m))));
      assertClose(res as Float64Array, expected, op, 1e-12, 1e-12);
    });
  }

  test(`${on}: test_reduction.py::test_split_reduction`, async () => {
    // loopy splits the reduction outward and stops ("FIXME: finish test"); here it runs
    let knl = makeKernel('{[i,j,k]: 0<=i,j,k<n}', 'b = sum((i,j,k), a[i,j,k])', [
      globalArg('a', { dtype: 'float32' }),
      '...',
    ]);
    knl = splitReductionOutward(knl, 'j,k');
    assert.ok(knl.instruction('insn').expression!.kind === 'reduce');
    const n = 6;
    const a = randomFloat32(n ** 3, 3);
    const { b } = await run(knl, device, { a, n });
    assertClose(b as Float32Array, [sumOf(a)], 'b', 1e-5, 1e-5);
  });

  test(`${on}: test_reduction.py::test_double_sum_made_unique`, async () => {
    const n = 20;
    let knl = makeKernel('{[i,j]: 0<=i,j<n }', ['a = sum((i,j), i*j)', 'b = sum(i, sum(j, i*j))'], undefined, {
      assumptions: 'n>=1',
    });
    knl = makeReductionInamesUnique(knl);
    const { a, b } = await run(knl, device, { n });
    const ref = ((n * (n - 1)) / 2) ** 2;
    assert.equal([(a as Int32Array)[0], (b as Int32Array)[0]], [ref, ref]);
  });

  test(`${on}: test_reduction.py::test_parallel_multi_output_reduction`, async () => {
    if (!holds(device, 'float64', 'test_parallel_multi_output_reduction')) return;
    let knl = makeKernel('{[i]: 0<=i<128}', 'max_val, max_indices = argmax(i, abs(a[i]), i)');
    knl = addDtypes(tagInames(knl, { i: 'l.0' }), { a: 'float64' });
    const a = Float64Array.from(randomFloat32(128, 42), (x) => (x + 1) / 2);
    const { max_val, max_indices } = await run(knl, device, { a });
    const best = Math.max(...a);
    assert.is((max_val as Float64Array)[0], best);
    assert.is((max_indices as Int32Array)[0], a.indexOf(best));
  });

  test(`${on}: test_reduction.py::test_any_all`, async () => {
    const knl = makeKernel('{[i, j]: 0<=i,j<10}', [
      'out1 = reduce(any, [i], i == 4)',
      'out2 = reduce(all, [j], j == 5)',
    ]);
    const { out1, out2 } = await run(knl, device, {});
    assert.equal([(out1 as Uint8Array)[0], (out2 as Uint8Array)[0]], [1, 0]);
  });

  test(`${on}: test_reduction.py::test_reduction_without_inames`, async () => {
    // loopy writes the zero-dimensional domain as "{:}"
    const knl = makeKernel('{ [] }', 'out = reduce(any, [], 5)');
    const { out } = await run(knl, device, {});
    assert.equal(Array.from(out as Int32Array), [5]);
  });

  test(`${on}: test_reduction.py::test_reduction_in_conditional`, async () => {
    // loopy writes `1729 if (sum(j, j) == 0) else sum(k, k)`
    const knl = makeKernel('{[i, j, k]: 0<=i,j,k<10}', 'y[i] = if(sum(j, j) == 0, 1729, sum(k, k))');
    const { y } = await run(preprocess(knl), device, {});
    assert.equal(Array.from(y as Int32Array), new Array(10).fill(45));
  });

  test(`${on}: test_reduction.py::test_realize_reduction_insn_id_filter_list`, async () => {
    if (!holds(device, 'float64', 'test_realize_reduction_insn_id_filter_list')) return;
    const ref = makeKernel(
      '{[i, j, k]: 0<=i,j,k<10}',
      `
      a = sum(i, 8*i)    {id=w_a}
      b = sum(j, j*j)    {id=w_b}
      c = sum(k, sin(3.14*k)) {id=w_c}
    `,
    );
    const inames = (knl: LoopKernel, id: string) => [...reductionInames(knl.instruction(id), knl.substitutions)];
    assert.equal(
      ['w_a', 'w_b', 'w_c'].map((id) => inames(ref, id)),
      [['i'], ['j'], ['k']],
    );
    const knl = realizeReduction(ref, { insnIdFilter: ['w_a', 'w_b'] });
    assert.equal(
      ['w_a', 'w_b', 'w_c'].map((id) => inames(knl, id)),
      [[], [], ['k']],
    );
    const got = await run(knl, device, {});
    const expected = await run(ref, device, {});
    assert.equal([(got.a as Int32Array)[0], (got.b as Int32Array)[0]], [8 * 45, 285]);
    assert.equal([(expected.a as Int32Array)[0], (expected.b as Int32Array)[0]], [8 * 45, 285]);
    let c = 0;
    for (let k = 0; k < 10; k++) c += Math.sin(3.14 * k);
    assertClose(got.c as Float64Array, [c], 'c', 1e-12, 1e-12);
    assertClose(expected.c as Float64Array, [c], 'c (reference)', 1e-12, 1e-12);
  });
}

test('test_reduction.py::test_reduction_with_conditional', () => {
  let knl = makeKernel(
    '{ [l,i] : 0<=l,i<42 }',
    `
    if l > 0
      b[l] = sum(i, l*a[i])
    end
  `,
    [valueArg('n', 'int32'), '...'],
  );
  knl = addDtypes(tagInames(knl, { l: 'g.0' }), { a: 'float32' });
  const code = generateCode(knl, openclTarget()).code;
  // the if appears before the loop that realizes the reduction
  const body = code.slice(code.indexOf('{'));
  assert.ok(body.indexOf('if') >= 0 && body.indexOf('if') < body.indexOf('for'), code);
});

test.run();
