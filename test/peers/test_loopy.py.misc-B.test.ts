/**
 * Ports of loopy's test_loopy.py, batch B (issue 28), the ones of no larger topic: argument
 * inference from predicates, type inference through function calls in comparisons and in
 * substitution rules, splitting an iname within some instructions or under a domain with
 * several parent inames, the order of the pieces of a `sep` array, a reduction in a
 * condition, a rectangular tiled matrix product with prefetches, and a vector loop under a
 * predicate. Every kernel runs on every test device (loopy's `auto_test_vs_ref` compares
 * with the sequential kernel; here both are compared with plain JavaScript). Names are the
 * originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addPrefetch,
  generateCode,
  globalArg,
  LoomError,
  makeKernel,
  printExpr,
  run,
  splitIname,
  substitutionRule,
  tagArrayAxes,
  tagInames,
  temporaryVariable,
  type LoopKernel,
} from '@loom/core';
import { cTarget } from '@loom/codegen-c';
import { assertClose, supportsDType, testDevices } from '../support/devices.ts';

test('test_arg_inference_for_predicates', () => {
  const knl = makeKernel('{[i]: 0 <= i < 10}', ['if incr[i]', '  a = a + 1', 'end']);
  const incr = knl.arg('incr');
  assert.ok(incr, 'incr is an argument');
  assert.equal(
    incr.shape?.map((e) => printExpr(e)),
    ['10'],
  );
});

test('test_creation_kwargs', () => {
  // loopy's issue 705: the substitutions passed to makeKernel are the kernel's
  const knl = makeKernel('{[i]: 0<=i<10}', 'a[i] = foo() * i', {
    substitutions: { foo: substitutionRule('foo', [], '3.14') },
  });
  assert.equal([...knl.substitutions.keys()], ['foo']);
  assert.equal(printExpr(knl.substitutions.get('foo')!.expression), '3.14');
  // a rule defined in the text too is refused
  assert.throws(
    () =>
      makeKernel('{[i]: 0<=i<10}', ['foo := 5', 'a[i] = foo() * i'], {
        substitutions: { foo: substitutionRule('foo', [], '3.14') },
      }),
    (e: unknown) =>
      e instanceof LoomError && /'foo' is defined both in the instructions and in the option/.test(e.message),
  );
});

for (const device of testDevices()) {
  test(`${device.name}: test_creation_kwargs (the rules given apart are expanded)`, async () => {
    const knl = makeKernel('{[i]: 0<=i<10}', 'a[i] = foo() * i + sq(i)', {
      substitutions: { foo: substitutionRule('foo', [], '2.5'), sq: substitutionRule('sq', ['x'], 'x*x') },
    });
    const { a } = await run(knl, device, {});
    assert.equal(
      Array.from(a as Float32Array),
      Array.from({ length: 10 }, (_, i) => 2.5 * i + i * i),
    );
  });
}

/** loopy's kernel: t1 and t2 are sums over i (and p: they are not reset), then compared through abs. */
function fnInComparison(): LoopKernel {
  return makeKernel(
    ['{ [p] : 0 <= p <= 2 }', '{ [i] : 0 <= i <= 2 }'],
    `
    t2 = 0.0 {id=insn}
    t1 = 0.0 {id=insn_0, dep=insn}
    t1 = t1 + t0[p, i]*w_0[1 + i*2] {id=insn_1, dep=insn_0}
    t2 = t2 + t0[p, i]*w_0[i*2] {id=insn_2, dep=insn_1}
    A[p] = A[p]+(0.2 if abs(-1.2+t2) <= 0.1 and abs(-0.15+t1) <= 0.05 else 0.0
                                        ) {dep=insn_2}
    `,
    [
      globalArg('A', { dtype: 'float64', shape: 3 }),
      globalArg('w_0', { dtype: 'float64', shape: 6 }),
      temporaryVariable('t0', {
        dtype: 'float64',
        shape: [3, 3],
        readOnly: true,
        initializer: [1, 0, 0, 0, 1, 0, 0, 0, 1],
      }),
      temporaryVariable('t1', { dtype: 'float64', shape: [] }),
      temporaryVariable('t2', { dtype: 'float64', shape: [] }),
    ],
  );
}

test('test_type_inference_walks_fn_in_comparison: C code', () => {
  const code = generateCode(fnInComparison(), cTarget()).code;
  assert.match(code, /fabs\(-1\.2 \+ t2\) <= 0\.1/);
});

for (const device of testDevices()) {
  if (supportsDType(device, 'float64')) {
    test(`${device.name}: test_type_inference_walks_fn_in_comparison`, async () => {
      // t2 and t1 after p = 0: 1.2 and 0.15 (true), after p = 1 still (true), after p = 2: 2.2 (false)
      const w0 = Float64Array.from([1.2, 0.15, 0, 0, 1, 0]);
      const { A } = await run(fnInComparison(), device, { A: Float64Array.from([1, 2, 3]), w_0: w0 });
      let [t1, t2] = [0, 0];
      const expected = [1, 2, 3].map((a, p) => {
        for (let i = 0; i <= 2; i++) {
          const t0 = p === i ? 1 : 0;
          t1 += t0 * w0[1 + 2 * i];
          t2 += t0 * w0[2 * i];
        }
        return a + (Math.abs(-1.2 + t2) <= 0.1 && Math.abs(-0.15 + t1) <= 0.05 ? 0.2 : 0);
      });
      assert.equal(Array.from(A as Float64Array), expected);
      assert.equal(expected, [1.2, 2.2, 3]);
    });
  }

  test(`${device.name}: test_split_iname_within`, async () => {
    const ref = makeKernel(
      '{ [i, j]: 0<=i<n and 0<=j<n }',
      `
      x[i, j] = 3 {id=a}
      y[i, j] = 2 * y[i, j] {id=b}
      `,
    );
    let knl = splitIname(ref, 'j', 4, { outerTag: 'g.0', innerTag: 'l.0', within: 'id:a' });
    knl = splitIname(knl, 'i', 4, { outerTag: 'g.0', innerTag: 'l.0', within: 'id:b' });
    // j is split only in a, i only in b
    assert.ok(knl.instruction('a').withinInames.includes('j_inner'));
    assert.ok(knl.instruction('a').withinInames.includes('i'));
    assert.ok(knl.instruction('b').withinInames.includes('i_inner'));
    assert.ok(knl.instruction('b').withinInames.includes('j'));
    const n = 5;
    const y0 = Float32Array.from({ length: n * n }, (_, k) => k - 7.5);
    for (const k of [ref, knl]) {
      const { x, y } = await run(k, device, { y: y0.slice(), n });
      assert.equal(Array.from(x as Int32Array), new Array(n * n).fill(3));
      assert.equal(
        Array.from(y as Float32Array),
        Array.from(y0, (v) => 2 * v),
      );
    }
  });

  test(`${device.name}: test_split_iname_with_multiple_dim_params`, async () => {
    const ref = makeKernel(['{[i, j]: 0<=i,j<16}', '[i,j] -> {[k]: 0<=k<=4}'], 'foo[i, j, k] = i+j+k');
    const knl = splitIname(ref, 'i', 4);
    const expected = Array.from(
      { length: 16 * 16 * 5 },
      (_, f) => Math.floor(f / 80) + (Math.floor(f / 5) % 16) + (f % 5),
    );
    for (const k of [ref, knl]) {
      const { foo } = await run(k, device, {});
      assert.equal(Array.from(foo as Int32Array), expected);
    }
  });

  test(`${device.name}: test_sep_array_ordering`, async () => {
    // loopy's bug showed from 11 pieces on (x10 sorted between x1 and x2)
    const n = 11;
    const m = 3;
    let knl = makeKernel(
      '{[i, k]: 0<=k<noutputs and 0<=i<m}',
      'x[k, i] = k',
      [globalArg('x', { shape: ['noutputs', 'm'] }), '...'],
      { fixedParameters: { noutputs: n } },
    );
    knl = tagArrayAxes(knl, 'x', 'sep,C');
    knl = tagInames(knl, 'k:unr');
    const { x } = await run(knl, device, { m });
    assert.equal(
      Array.from(x as Int32Array),
      Array.from({ length: n * m }, (_, f) => Math.floor(f / m)),
    );
  });

  test(`${device.name}: test_redn_in_predicate`, async () => {
    const knl = makeKernel(
      ['{[i]: 0<= i < 5}', '{[j]: 0<= j < 10}', '{[k]: 0<=k<10}'],
      'y[j] = sum(i, i**3) if (sum(k, k**2) < 2) else (10 - j)',
      { seqDependencies: true },
    );
    const { y } = await run(knl, device, {});
    // sum(k, k**2) is 285, not below 2
    assert.equal(
      Array.from(y as Int32Array),
      Array.from({ length: 10 }, (_, j) => 10 - j),
    );
  });

  test(`${device.name}: test_type_inference_of_clbls_in_substitutions`, async () => {
    const knl = makeKernel(
      '{[i]: 0<=i<10}',
      `
      subst_0(_0) := abs(10.0 * (_0-5))

      y[i] = subst_0(i)
      `,
    );
    const { y } = await run(knl, device, {});
    assert.ok(y instanceof Float32Array, '10.0 is float32, which holds it exactly (as loopy sizes literals)');
    assertClose(
      y as Float32Array,
      Array.from({ length: 10 }, (_, i) => Math.abs(10 * (i - 5))),
      'y',
    );
  });

  if (supportsDType(device, 'float64')) {
    test(`${device.name}: test_dgemm_with_rectangular_tile_prefetch`, async () => {
      const ref = makeKernel('{[i,j,k]: 0<=i,j<72 and 0<=k<32}', 'C[i,j] = sum(k, A[i,k] * B[k,j])', [
        globalArg('A', { dtype: 'float64', shape: 'auto' }),
        globalArg('B', { dtype: 'float64', shape: 'auto' }),
        '...',
      ]);
      const [tx, ty, tk] = [8, 23, 11];
      let knl = splitIname(ref, 'i', tx, { innerTag: 'l.0', outerTag: 'g.0' });
      knl = splitIname(knl, 'j', ty, { innerTag: 'l.1', outerTag: 'g.1' });
      knl = splitIname(knl, 'k', tk);
      const fetchOuterInames = ['i_outer', 'j_outer', 'k_outer'];
      knl = addPrefetch(knl, 'A', ['i_inner', 'k_inner'], {
        temporaryAddressSpace: 'local',
        fetchOuterInames,
        dimArgNames: ['iprftch_A', 'kprftch_A'],
        defaultTag: null,
      });
      knl = addPrefetch(knl, 'B', ['k_inner', 'j_inner'], {
        temporaryAddressSpace: 'local',
        fetchOuterInames,
        dimArgNames: ['kprftch_B', 'jprftch_B'],
        defaultTag: null,
      });
      knl = splitIname(knl, 'kprftch_A', tx, { innerTag: 'l.0' });
      knl = splitIname(knl, 'iprftch_A', ty, { innerTag: 'l.1' });
      knl = splitIname(knl, 'jprftch_B', tx, { innerTag: 'l.0' });
      knl = splitIname(knl, 'kprftch_B', ty, { innerTag: 'l.1' });
      const A = Float64Array.from({ length: 72 * 32 }, (_, f) => ((f * 7) % 13) - 6);
      const B = Float64Array.from({ length: 32 * 72 }, (_, f) => ((f * 5) % 11) - 5);
      const expected = Array.from({ length: 72 * 72 }, (_, f) => {
        const [i, j] = [Math.floor(f / 72), f % 72];
        let s = 0;
        for (let k = 0; k < 32; k++) s += A[i * 32 + k] * B[k * 72 + j];
        return s;
      });
      for (const k of [ref, knl]) {
        const { C } = await run(k, device, { A, B });
        assert.equal(Array.from(C as Float64Array), expected);
      }
    });
  }

  test(`${device.name}: test_vec_loops_surrounded_by_preds`, async () => {
    // loopy's kernel (an xfail there: issue 615): out[i, 0] reads tmp[0], which nothing writes, so only j >= 1 is compared
    const loopyKernel = (init: string) =>
      makeKernel(
        '{[i, j]: 0<=i<100 and 0<=j<4}',
        `
        for i
          for j
            ${init}
            if j
              tmp[j] = 1
            end
            out[i, j] = 2*tmp[j]
          end
        end
        `,
        [temporaryVariable('tmp', { shape: [4] }), '...'],
        { seqDependencies: true },
      );
    const vectorized = (knl: LoopKernel) => tagInames(tagArrayAxes(knl, 'tmp', 'vec'), 'j:vec');
    for (const knl of [loopyKernel(''), vectorized(loopyKernel(''))]) {
      const out = (await run(knl, device, {})).out as Int32Array;
      for (let i = 0; i < 100; i++) assert.equal(Array.from(out.subarray(4 * i + 1, 4 * i + 4)), [2, 2, 2], `row ${i}`);
    }
    // every element written first (5, then 1 where j is not 0): all of out is defined
    for (const knl of [loopyKernel('tmp[j] = 5'), vectorized(loopyKernel('tmp[j] = 5'))]) {
      const out = (await run(knl, device, {})).out as Int32Array;
      assert.equal(
        Array.from(out),
        Array.from({ length: 400 }, (_, f) => (f % 4 ? 2 : 10)),
      );
    }
  });
}

test.run();
