/**
 * Ports of loopy's tests of arrays and arguments (issue 27, "Arrays and arguments"): loopy's
 * shape guesses (`out[i % 20]` is 20 long, an array never read is `()`), domain parameters
 * missing from a given argument list, and padded layouts (`findPaddingMultiple`). Each runs
 * on every test device against plain JavaScript, as loopy's `auto_test_vs_ref` compares with
 * a sequential reference. Names are the originals'; the file each comes from is in its comment.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addPadding,
  addPrefetch,
  findPaddingMultiple,
  fuseKernels,
  generateCode,
  getOneLinearizedKernel,
  LoomError,
  globalArg,
  makeKernel,
  run,
  setTemporaryAddressSpace,
  splitArrayAxis,
  splitIname,
  stridesOf,
  targetFacts,
  tagArrayAxes,
  tagInames,
  valueArg,
  type LoopKernel,
  type ScheduleItem,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { assertClose, testDevices } from '../support/devices.ts';

/** Small integers, exact in every dtype, so sums compare exactly. */
const ints = (n: number, seed: number) => Array.from({ length: n }, (_, k) => ((k * 7 + seed * 13) % 17) - 8);

/**
 * loopy's `barrier_between` (test/test_loopy.py): a barrier is scheduled after `first` and
 * before `second`, not counting those nested `ignoreLevels` deep (loops inside loops).
 */
function barrierBetween(knl: LoopKernel, first: string, second: string, ignoreLevels: readonly number[] = []): boolean {
  const flat: { item: ScheduleItem; level: number }[] = [];
  const visit = (items: readonly ScheduleItem[], level: number) => {
    for (const item of items) {
      flat.push({ item, level });
      if (item.kind === 'loop') visit(item.body, level + 1);
    }
  };
  for (const sub of getOneLinearizedKernel(knl).subkernels) visit(sub.schedule, 0);
  const at = (id: string) => flat.findIndex(({ item }) => item.kind === 'insn' && item.id === id);
  const [from, to] = [at(first), at(second)];
  assert.ok(from >= 0 && to > from, `${first} is scheduled before ${second}`);
  return flat.slice(from + 1, to).some(({ item, level }) => item.kind === 'barrier' && !ignoreLevels.includes(level));
}

// test_loopy.py
for (const dtype of ['int32', 'int64', 'float32', 'float64'] as const) {
  test(`test_atomic[${dtype}]: out[i % 20] guesses the shape 20`, () => {
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      'out[i%20] = out[i%20] + 2*a[i] {atomic}',
      [globalArg('out', { dtype, shape: 'auto', forAtomic: true }), globalArg('a', { dtype, shape: 'auto' }), '...'],
      {
        assumptions: 'n>0',
      },
    );
    assert.equal(
      knl.arg('out')!.shape!.map((e) => e.kind === 'int' && e.value),
      [20],
    );
  });
}

for (const device of testDevices()) {
  // test_loopy.py; the atomic dtypes each device has (int64 and float64 atomics are extensions)
  for (const dtype of ['int32', 'float32'] as const) {
    test(`${device.name}: test_atomic[${dtype}]`, async () => {
      const ref = makeKernel(
        '{ [i]: 0<=i<n }',
        'out[i%20] = out[i%20] + 2*a[i] {atomic}',
        [globalArg('out', { dtype, shape: 'auto', forAtomic: true }), globalArg('a', { dtype, shape: 'auto' }), '...'],
        {
          assumptions: 'n>0',
        },
      );
      let knl = splitIname(ref, 'i', 512);
      knl = splitIname(knl, 'i_inner', 128, { outerTag: 'unr', innerTag: 'g.0' });
      const n = 10000;
      const values = ints(n, 1);
      const a = dtype === 'int32' ? Int32Array.from(values) : Float32Array.from(values);
      const out0 = ints(20, 2);
      const fresh = () => (dtype === 'int32' ? Int32Array.from(out0) : Float32Array.from(out0));
      const expected = out0.slice();
      values.forEach((v, i) => {
        expected[i % 20] += 2 * v;
      });
      if (!targetFacts(device.target).atomicDTypes.has(dtype)) {
        // a target without atomics of the dtype refuses the kernel before anything runs
        const refused = await run(knl, device, { a, out: fresh() }).then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(refused instanceof LoomError && /atomically/.test(refused.message), String(refused));
        return;
      }
      const got = (await run(knl, device, { a, out: fresh() })).out as Int32Array | Float32Array;
      assert.equal(Array.from(got), expected);
      // and the reference kernel agrees (loopy's auto_test_vs_ref)
      assert.equal(
        Array.from((await run(ref, device, { a, out: fresh() })).out as Int32Array | Float32Array),
        expected,
      );
    });
  }

  // test_domain.py: loopy only prints the code; here it also runs on a CSR matrix. a_values is
  // declared without a shape, and its index is read from data: it stays shape-less (loopy's
  // `shape=None`), as long as the array passed, its reads guarded and checked at run time.
  for (const variant of ['test_dependent_loop_bounds', 'test_dependent_loop_bounds_2'] as const) {
    test(`${device.name}: ${variant}`, async () => {
      const second = variant === 'test_dependent_loop_bounds_2';
      const out = second ? 'ax' : 'a_sum';
      const instructions = second
        ? [
            '<> row_start = a_rowstarts[i]',
            '<> row_len = a_rowstarts[i+1] - row_start',
            'ax[i] = sum(jj, a_values[[row_start+jj]])',
          ]
        : ['<> row_len = a_rowstarts[i+1] - a_rowstarts[i]', 'a_sum[i] = sum(jj, a_values[[a_rowstarts[i]+jj]])'];
      let knl = makeKernel(
        ['{[i]: 0<=i<n}', '{[jj]: 0<=jj<row_len}'],
        instructions,
        [
          globalArg('a_rowstarts', { dtype: 'int32', shape: 'auto' }),
          globalArg('a_indices', { dtype: 'int32', shape: 'auto' }),
          globalArg('a_values', { dtype: 'float32' }),
          globalArg(out, { dtype: 'float32', shape: 'auto' }),
          valueArg('n', 'int32'),
        ],
        { assumptions: 'n>=1 and row_len>=1' },
      );
      // a_indices is never read: loopy's guess for it is `()`; a_values has one axis, the array's length
      assert.equal(knl.arg('a_indices')!.shape, []);
      assert.equal(knl.arg('a_values')!.shape, [{ kind: 'var', name: 'a_values_length' }]);
      if (second) {
        // loopy's `strides=(1,)` on a_values
        knl = tagArrayAxes(knl, 'a_values', 'stride:1');
        knl = splitIname(knl, 'i', 128, { outerTag: 'g.0', innerTag: 'l.0' });
      }
      generateCode(knl, openclTarget());
      const rowLengths = [3, 1, 4, 1, 5, 2, 6];
      const starts = [0];
      for (const len of rowLengths) starts.push(starts[starts.length - 1] + len);
      const values = Float32Array.from(ints(starts[starts.length - 1], 3));
      const result = await run(knl, device, {
        a_rowstarts: Int32Array.from(starts),
        a_indices: new Int32Array(1),
        a_values: values,
        n: rowLengths.length,
      });
      assert.equal(
        Array.from(result[out] as Float32Array),
        rowLengths.map((_, i) => values.slice(starts[i], starts[i + 1]).reduce((s, v) => s + v, 0)),
      );
      // a row that runs past the array passed reads no element outside it: the guard gives 0
      // and the bounds check (on by default on the CPU device, asked for here) reports it
      const refused = await run(
        knl,
        device,
        {
          a_rowstarts: Int32Array.from([...starts.slice(0, -1), starts[starts.length - 1] + 2]),
          a_indices: new Int32Array(1),
          a_values: values,
          n: rowLengths.length,
        },
        { checkBounds: true },
      ).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(refused instanceof LoomError && /out of bounds[\s\S]*a_values/.test(refused.message), String(refused));
    });
  }

  // test_apps.py: loopy only prints the code
  test(`${device.name}: test_abs_as_index`, async () => {
    const knl = makeKernel(['{[i]: 0<=i<10}'], 'b[i] = a[abs(5-i)]', [globalArg('a', { dtype: 'float32' }), '...']);
    // abs(5 - i) over 0 <= i < 10 reaches 5: a guessed shape of 6
    assert.equal(knl.arg('a')!.shape, [{ kind: 'int', value: 6 }]);
    const a = Float32Array.from(ints(6, 4));
    const { b } = await run(knl, device, { a });
    assert.equal(
      Array.from(b as Float32Array),
      Array.from({ length: 10 }, (_, i) => a[Math.abs(5 - i)]),
    );
  });

  // test_loopy.py: test_finite_difference_expr_subst. The flux kernel's argument list leaves out
  // the domain parameter n, which is added as loopy adds it.
  test(`${device.name}: test_finite_difference_expr_subst`, async () => {
    const finDiff = makeKernel('{[i]: 1<=i<=n}', 'out[i] = -(f[i+1] - f[i-1])/h', [
      globalArg('out', { shape: ['n+2'] }),
      globalArg('f', { isInput: false, isOutput: true, shape: 'auto' }),
      '...',
    ]);
    const flux = makeKernel('{[j]: 1<=j<=n}', 'f[j] = u[j]**2/2', [
      globalArg('f', { shape: ['n+2'] }),
      globalArg('u', { shape: ['n+2'] }),
    ]);
    assert.equal(
      flux.args.map((a) => `${a.name}:${a.kind}`),
      ['f:global', 'u:global', 'n:value'],
    );
    const fused = fuseKernels([finDiff, flux], { dataFlow: [['f', 1, 0]] });
    const points = 2048;
    const u = Float32Array.from({ length: points }, (_, k) => Math.sin((2 * Math.PI * k) / points));
    const h = 0.1;
    const { out, f } = await run(fused, device, { u, h });
    const n = points - 2;
    const flux0 = (j: number) => Math.fround(Math.fround(u[j] * u[j]) / 2);
    const expectedF = Array.from({ length: points }, (_, j) => (j >= 1 && j <= n ? flux0(j) : undefined));
    assertClose(
      Array.from((f as Float32Array).subarray(1, n + 1)),
      expectedF.slice(1, n + 1) as number[],
      'f',
      1e-6,
      1e-7,
    );
    assertClose(
      Array.from({ length: n - 2 }, (_, k) => (out as Float32Array)[k + 2]),
      Array.from({ length: n - 2 }, (_, k) => -(flux0(k + 3) - flux0(k + 1)) / h),
      'out',
      1e-5,
      1e-6,
    );
  });

  // test_linalg.py: the prefetched matrix, f's rows split into groups padded to 64 bytes
  test(`${device.name}: test_small_batched_matvec`, async () => {
    const Np = 36;
    const K = 997;
    const seq = makeKernel(
      `{[i,j,k]: 0<=k<K and 0<= i,j < ${Np}}`,
      'result[k, i] = sum(j, d[i, j]*f[k, j])',
      [
        globalArg('d', { dtype: 'float32', shape: [Np, Np] }),
        globalArg('f', { dtype: 'float32', shape: ['K', Np] }),
        globalArg('result', { dtype: 'float32', shape: ['K', Np] }),
        valueArg('K', 'int32'),
      ],
      { name: 'batched_matvec', assumptions: 'K>=1' },
    );
    // l.auto, fitted as loopy's assign_automatic_axes fits it: the kernel has no work-group, so
    // the fetch inames stay loops
    let knl = addPrefetch(seq, 'd[:,:]', [], { defaultTag: 'l.auto' });
    assert.ok(
      knl.inames.filter((n) => n.startsWith('d_dim')).every((n) => knl.inameTags.get(n) === undefined),
      'the fetch runs in loops',
    );
    const padMult = findPaddingMultiple(knl, 'f', 0, 64);
    knl = splitArrayAxis(knl, 'f', 0, padMult);
    knl = addPadding(knl, 'f', 0, 64);
    // a group of padMult rows starts on a 64-byte line
    const f = knl.arg('f')!;
    const strides = stridesOf(f.shape!, f.dimTags).map((s) => (s.kind === 'int' ? s.value : Number.NaN));
    assert.is((strides[0] * 4) % 64, 0);
    const d = Float32Array.from(ints(Np * Np, 5));
    const fLogical = Float32Array.from(ints(K * Np, 6));
    const groups = Math.ceil(K / padMult);
    const padded = new Float32Array(groups * strides[0]);
    for (let k = 0; k < K; k++)
      for (let j = 0; j < Np; j++)
        padded[Math.floor(k / padMult) * strides[0] + (k % padMult) * strides[1] + j * strides[2]] =
          fLogical[k * Np + j];
    // as loopy's host array has the padded strides, the Float32Array passed is f's padded buffer
    const { result } = await run(knl, device, { d, f: padded, K });
    const reference = (await run(seq, device, { d, f: fLogical, K })).result as Float32Array;
    assert.equal(Array.from(result as Float32Array), Array.from(reference));
    // and the reference is the product, in integers exact in float32
    for (let k = 0; k < K; k += 97) {
      for (let i = 0; i < Np; i++) {
        let s = 0;
        for (let j = 0; j < Np; j++) s += d[i * Np + j] * fLogical[k * Np + j];
        assert.is(reference[k * Np + i], s);
      }
    }
  });
}

// test_loopy.py: a `<>` temporary read at (i + 1) % 10 is guessed 10 long
test('test_barrier_insertion_near_top_of_loop', () => {
  let knl = makeKernel(
    '{[i,j]: 0 <= i,j < 10 }',
    `for i
       <>a[i] = i  {id=ainit}
       for j
         <>t = a[(i + 1) % 10]  {id=tcomp}
         <>b[i,j] = a[i] + t   {id=bcomp1}
         b[i,j] = b[i,j] + 1  {id=bcomp2}
       end
     end`,
    undefined,
    { seqDependencies: true },
  );
  knl = tagInames(knl, { i: 'l.0' });
  knl = setTemporaryAddressSpace(knl, 'a', 'local');
  knl = setTemporaryAddressSpace(knl, 'b', 'local');
  assert.ok(barrierBetween(knl, 'ainit', 'tcomp'));
});

test('test_barrier_insertion_near_bottom_of_loop', () => {
  let knl = makeKernel(
    ['{[i]: 0 <= i < 10 }', '[jmax] -> {[j]: 0 <= j < jmax}'],
    `for i
       <>a[i] = i  {id=ainit}
       for j
         <>b[i,j] = a[(i+1) % 10] + t   {id=bcomp1}
         b[i,j] = b[(i+2) % 10,j] + 1  {id=bcomp2}
       end
       a[10-i] = i + 1 {id=aupdate}
     end`,
    undefined,
    { seqDependencies: true },
  );
  // b is (10, jmax): a local temporary of a size known only at run time, as loopy has it
  knl = tagInames(knl, { i: 'l.0' });
  knl = setTemporaryAddressSpace(knl, 'a', 'local');
  knl = setTemporaryAddressSpace(knl, 'b', 'local');
  assert.ok(barrierBetween(knl, 'bcomp1', 'bcomp2'));
  assert.ok(barrierBetween(knl, 'ainit', 'aupdate', [1]));
});

test.run();
