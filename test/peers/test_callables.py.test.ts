/**
 * Ports of loopy's test/test_callables.py: programs of several kernels (`merge`), calls with
 * sub-array references, slices and several results, and `inlineCallableKernel`; the callees with global barriers, scalars, hardware axes and
 * inlining's own cases are in test_callables.py.inlining.test.ts. loopy's
 * `inline` parameter runs inside each test: the program as merged, whose callees are device
 * functions in the code where the target calls functions (codegen/device-functions.ts), and the
 * program after `inlineCallableKernel`, whose code has none (`bothWays` checks both). Each
 * runs on every test device against plain JavaScript; float64 where the device has it.
 * test_register_function_lookup is ported with the user functions, in
 * test_loopy.py.public-api-2.test.ts; test_double_resolving and test_symbol_mangler_in_call are in
 * NOT-PORTED.md.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  generateCode,
  globalArg,
  LoomError,
  makeFunction,
  makeKernel,
  mapKernel,
  packAndUnpackArgsForCall,
  merge,
  programKernel,
  run,
  splitIname,
  valueArg,
} from '@loom/core';
import { testDevices } from '../support/devices.ts';
import { bothWays, floatType, arrayOf, random, assertNear } from '../support/callables.ts';

for (const device of testDevices()) {
  test(`${device.name}: test_register_knl`, async () => {
    const dt = floatType(device);
    const n = 4;
    const x = arrayOf(dt, random(n ** 5, 1));
    const y = arrayOf(dt, random(n ** 5, 2));
    const grandchild = makeFunction('{[i, j]:0<= i, j< 4}', 'c[i, j] = 2*a[i, j] + 3*b[i, j]', {
      name: 'linear_combo1',
    });
    const child = makeFunction(
      '{[i, j]:0<=i, j < 4}',
      '[i, j]: g[i, j] = linear_combo1([i, j]: e[i, j], [i, j]: f[i, j])',
      { name: 'linear_combo2' },
    );
    const parent = makeKernel(
      '{[i, j, k, l, m]: 0<=i, j, k, l, m<4}',
      `[j, l]: z[i, j, k, l, m] = linear_combo2([j, l]: x[i, j, k, l, m],
                                                [j, l]: y[i, j, k, l, m])`,
      [globalArg('x, y', { dtype: dt, shape: [n, n, n, n, n] }), '...'],
    );
    const prog = merge([grandchild, child, parent]);
    for (const [how, p] of bothWays(prog, device, ['linear_combo2', 'linear_combo1'])) {
      const { z } = await run(p, device, { x, y });
      assertNear(
        z as Float64Array,
        [...x].map((v, k) => 2 * v + 3 * y[k]),
        how,
      );
    }
  });

  test(`${device.name}: test_slices_with_negative_step`, async () => {
    const dt = floatType(device);
    const n = 4;
    const x = arrayOf(dt, random(n ** 5, 3));
    const y = arrayOf(dt, random(n ** 5, 4));
    const child = makeFunction('{[i, j]:0<=i, j < 4}', 'g[i, j] = 2*e[i, j] + 3*f[i, j]', { name: 'linear_combo' });
    const parent = makeKernel(
      '{[i, k, m]: 0<=i, k, m<4}',
      'z[i, 3:-1:-1, k, :, m] = linear_combo(x[i, :, k, :, m], y[i, :, k, :, m])',
      [globalArg('x, y, z', { dtype: dt, shape: [n, n, n, n, n] }), '...'],
    );
    for (const [how, p] of bothWays(merge([parent, child]), device, ['linear_combo'])) {
      const z = (await run(p, device, { x, y })).z as Float64Array;
      // z[:, ::-1] = 2x + 3y
      const at = (i: number, j: number, k: number, l: number, m: number) => (((i * n + j) * n + k) * n + l) * n + m;
      const expected: number[] = [];
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++)
          for (let k = 0; k < n; k++)
            for (let l = 0; l < n; l++)
              for (let m = 0; m < n; m++) {
                const src = at(i, n - 1 - j, k, l, m);
                expected.push(2 * x[src] + 3 * y[src]);
              }
      assertNear(z, expected, how);
    }
  });

  test(`${device.name}: test_register_knl_with_hw_axes`, async () => {
    const dt = floatType(device);
    const n = 4;
    const x = arrayOf(dt, random(n ** 5, 5));
    const y = arrayOf(dt, random(n ** 5, 6));
    let callee = makeFunction('{[i, j]:0<=i, j < 4}', 'g[i, j] = 2*e[i, j] + 3*f[i, j]', { name: 'linear_combo' });
    callee = mapKernel(callee, 'linear_combo', (k) => splitIname(k, 'i', 1, { innerTag: 'l.0', outerTag: 'g.0' }));
    let caller = makeKernel(
      '{[i, j, k, l, m]: 0<=i, j, k, l, m<4}',
      `[j, l]: z[i, j, k, l, m] = linear_combo([j, l]: x[i, j, k, l, m],
                                               [j, l]: y[i, j, k, l, m])`,
      [globalArg('x, y', { dtype: dt, shape: [n, n, n, n, n] }), '...'],
      { name: 'caller' },
    );
    caller = splitIname(caller, 'i', 4, { innerTag: 'l.1', outerTag: 'g.1' });
    for (const [how, p] of bothWays(merge([caller, callee]), device, ['linear_combo'])) {
      const { z } = await run(p, device, { x, y });
      assertNear(
        z as Float64Array,
        [...x].map((v, k) => 2 * v + 3 * y[k]),
        how,
      );
    }
  });

  test(`${device.name}: test_shape_translation_through_sub_array_ref`, async () => {
    const dt = floatType(device);
    const x1 = arrayOf(dt, random(6, 7));
    const x2 = arrayOf(dt, random(6, 8));
    const x3 = arrayOf(dt, random(36, 9));
    const callee1 = makeFunction('{[i]: 0<=i<6}', 'b[i] = 2*abs(a[i])', { name: 'callee_fn1' });
    const callee2 = makeFunction('{[i, j]: 0<=i<3 and 0 <= j < 2}', 'b[i, j] = 3*a[i, j]', { name: 'callee_fn2' });
    const callee3 = makeFunction('{[i]: 0<=i<6}', 'b[i] = 5*a[i]', { name: 'callee_fn3' });
    const knl = makeKernel(
      '{[i, j, k, l]:  0<= i < 6 and 0 <= j < 3 and 0 <= k < 2 and 0<=l<6}',
      `
      [i]: y1[i//2, i%2] = callee_fn1([i]: x1[i//2, i%2])
      [j, k]: y2[2*j+k] = callee_fn2([j, k]: x2[2*j+k])
      [l]: y3[l, l] = callee_fn3([l]: x3[l, l])
      `,
    );
    const prog = merge([merge([merge([knl, callee1]), callee2]), callee3]);
    for (const [how, p] of bothWays(prog, device, ['callee_fn1', 'callee_fn2', 'callee_fn3'])) {
      const out = await run(p, device, { x1, x2, x3 });
      assertNear(
        out.y1 as Float64Array,
        [...x1].map((v) => 2 * v),
        `${how} y1`,
      );
      assertNear(
        out.y2 as Float64Array,
        [...x2].map((v) => 3 * v),
        `${how} y2`,
      );
      const y3 = out.y3 as Float64Array;
      assertNear(
        [0, 1, 2, 3, 4, 5].map((l) => y3[7 * l]),
        [0, 1, 2, 3, 4, 5].map((l) => 5 * x3[7 * l]),
        `${how} diag(y3)`,
      );
    }
  });

  test(`${device.name}: test_multi_arg_array_call`, async () => {
    const dt = floatType(device);
    const n = 10;
    const argmin = makeFunction(
      '[n] -> {[i]: 0 <= i < n}',
      `
      index = 0 {id=init2}
      acc_i = 214748367 {id=init1}
      acc_i = min(acc_i, a[i]) {id=update, dep=init1:init2}
      index = if(acc_i == a[i], i, index) {id=insn, dep=update}
      `,
      [globalArg('a'), globalArg('acc_i, index', { isInput: false, isOutput: true, shape: 'auto' }), '...'],
      { name: 'custom_argmin', fixedParameters: { n } },
    );
    const knl = makeKernel('[n] -> {[i]:0<=i<n}', '[]: min_val[()], []: min_index[()] = custom_argmin([i]:b[i])', {
      fixedParameters: { n },
    });
    const b = arrayOf(
      dt,
      random(n, 10).map((v) => v * 2 - 1),
    );
    const out = await run(merge([knl, argmin]), device, { b });
    const min = Math.min(...b);
    assertNear(out.min_val as Float64Array, [min], 'min_val');
    assert.is(Number((out.min_index as Int32Array)[0]), [...b].indexOf(min));
  });

  test(`${device.name}: test_packing_unpacking`, async () => {
    const dt = floatType(device);
    const x1 = arrayOf(dt, random(6, 27));
    const x2 = arrayOf(dt, random(6, 28));
    const callee1 = makeFunction('{[i]: 0<=i<6}', 'b[i] = 2*a[i]', { name: 'callee_fn1' });
    const callee2 = makeFunction('{[i, j]: 0<=i<2 and 0 <= j < 3}', 'b[i, j] = 3*a[i, j]', { name: 'callee_fn2' });
    const knl = makeKernel(
      '{[i, j, k]:  0<= i < 3 and 0 <= j < 2 and 0 <= k < 6}',
      `
      [i, j]: y1[i, j] = callee_fn1([i, j]: x1[i, j])
      [k]: y2[k] = callee_fn2([k]: x2[k])
      `,
    );
    const merged = merge([merge([knl, callee1]), callee2]);
    // the shapes differ (3 × 2 passed to a[6], 6 to a[2, 3]): inlining alone refuses them
    assert.throws(
      () => programKernel(merged),
      (e: unknown) => e instanceof LoomError && /packAndUnpackArgsForCall/.test(e.message),
    );
    const packed = packAndUnpackArgsForCall(packAndUnpackArgsForCall(merged, 'callee_fn1'), 'callee_fn2');
    for (const [how, p] of bothWays(packed, device, ['callee_fn1', 'callee_fn2'])) {
      const out = await run(p, device, { x1, x2 });
      assertNear(
        out.y1 as Float64Array,
        [...x1].map((v) => 2 * v),
        `${how} y1`,
      );
      assertNear(
        out.y2 as Float64Array,
        [...x2].map((v) => 3 * v),
        `${how} y2`,
      );
    }
  });

  test(`${device.name}: test_empty_sub_array_refs`, async () => {
    const dt = floatType(device);
    const x = arrayOf(dt, random(10, 11));
    const y = arrayOf(dt, random(10, 12));
    const callee = makeFunction('{[d]:0<=d<1}', 'c[d] = a[d] - b[d]', { name: 'wence_function' });
    const caller = makeKernel('{[i,k]: 0<=i<10 and 0<=k<1}', '[k]:z[i+k] = wence_function([k]:x[i+k], [k]:y[i+k])', [
      globalArg('x, y', { dtype: dt, shape: [10] }),
      '...',
    ]);
    for (const [how, p] of bothWays(merge([caller, callee]), device, ['wence_function'])) {
      const { z } = await run(p, device, { x, y });
      assertNear(
        z as Float64Array,
        [...x].map((v, k) => v - y[k]),
        how,
      );
    }
  });

  test(`${device.name}: test_array_inputs_to_callee_kernels`, async () => {
    const dt = floatType(device);
    const n = 8;
    const x = arrayOf(dt, random(n * n, 13));
    const y = arrayOf(dt, random(n * n, 14));
    const child = makeFunction('{[i, j]:0<=i, j < 8}', 'g[i, j] = 2*e[i, j] + 3*f[i, j]', { name: 'linear_combo' });
    const parent = makeKernel('{:}', 'z[:, :] = linear_combo(x, y)', [
      globalArg('x, y, z', { dtype: dt, shape: [n, n] }),
      '...',
    ]);
    for (const [how, p] of bothWays(merge([parent, child]), device, ['linear_combo'])) {
      const { z } = await run(p, device, { x, y });
      assertNear(
        z as Float64Array,
        [...x].map((v, k) => 2 * v + 3 * y[k]),
        how,
      );
    }
  });

  test(`${device.name}: test_stride_depending_on_args`, async () => {
    const dt = floatType(device);
    const twice = makeFunction('{[i, j]: 0<=i, j < n}', 'b[i, j] = 2*a[i, j]', [valueArg('n'), 'a', 'b'], {
      name: 'twice',
    });
    const thrice = makeFunction(
      '{[i, j]: 0<=i, j < n}',
      'b[i, j] = 3*a[i, j]',
      [valueArg('n'), globalArg('a', { shape: 'auto' }), globalArg('b', { shape: 'auto' })],
      { name: 'thrice' },
    );
    const prog = makeKernel(
      '{[i0,i1,i2,i3,i4,i5,i6,i7]: 0<=i0, i1, i2, i3, i4, i5, i6, i7< N}',
      `
      [i0, i1]: y[i0, i1] = twice(N, [i2, i3]: x[2*i2, i3])
      [i4, i5]: z[i4, i5] = thrice(N, [i6, i7]: x[2*i6+1, i7])
      `,
      [valueArg('N', 'int32'), globalArg('x', { shape: 'auto', dtype: dt }), '...'],
    );
    const N = 4;
    const x = arrayOf(dt, random(2 * N * N, 15));
    const out = await run(merge([merge([prog, twice]), thrice]), device, { x, N });
    const y: number[] = [];
    const z: number[] = [];
    for (let i = 0; i < N; i++)
      for (let j = 0; j < N; j++) {
        y.push(2 * x[2 * i * N + j]);
        z.push(3 * x[(2 * i + 1) * N + j]);
      }
    assertNear(out.y as Float64Array, y, 'y');
    assertNear(out.z as Float64Array, z, 'z');
  });

  test(`${device.name}: test_unknown_stride_to_callee`, async () => {
    const dt = floatType(device);
    const twice = makeFunction('{[i, j]: 0<=i, j < n}', 'b[i, j] = 2*a[i, j]', [valueArg('n'), 'a', 'b'], {
      name: 'twice',
    });
    const prog = makeKernel(
      '{[i,i0,i1,i2,i3]: 0<=i0, i1, i2, i3< N and 0<=i<Nvar}',
      '[i0, i1]: y[i0, i1, i] = twice(N, [i2, i3]: x[2*i2, i3, i])',
      [valueArg('N', 'int32'), valueArg('Nvar', 'int32'), globalArg('x', { shape: 'auto', dtype: dt }), '...'],
    );
    const [N, Nvar] = [4, 5];
    const x = arrayOf(dt, random((2 * N - 1) * N * Nvar, 16));
    const { y } = await run(merge([prog, twice]), device, { x, N, Nvar });
    const expected: number[] = [];
    for (let a = 0; a < N; a++)
      for (let b = 0; b < N; b++) for (let c = 0; c < Nvar; c++) expected.push(2 * x[(2 * a * N + b) * Nvar + c]);
    assertNear(y as Float64Array, expected, 'y');
  });

  test(`${device.name}: test_argument_matching_for_inplace_update`, async () => {
    const dt = floatType(device);
    const twice = makeFunction('{[i]: 0<=i<10}', 'x[i] = 2*x[i]', { name: 'twice' });
    const knl = makeKernel('{:}', 'x[:] = twice(x[:])', [globalArg('x', { shape: [10], dtype: dt })]);
    const x = arrayOf(dt, random(10, 17));
    const out = await run(merge([knl, twice]), device, { x: x.slice() });
    assertNear(
      out.x as Float64Array,
      [...x].map((v) => 2 * v),
      'x',
    );
  });

  test(`${device.name}: test_non_zero_start_in_subarray_ref`, async () => {
    const dt = floatType(device);
    const twice = makeFunction('{[i]: 0<=i<10}', 'b[i] = 2*a[i]', { name: 'twice' });
    const knl = makeKernel('{[i, j]: -5<=i<5 and 0<=j<10}', '[i]:y[i+5] = twice([j]: x[j])', [
      globalArg('x, y', { shape: [10], dtype: dt }),
    ]);
    const x = arrayOf(dt, random(10, 18));
    const { y } = await run(merge([knl, twice]), device, { x });
    assertNear(
      y as Float64Array,
      [...x].map((v) => 2 * v),
      'y',
    );
  });
}

test('test_incomplete_entrypoint_raises_type_inf_failure', () => {
  const twice = makeKernel('{[i]: 0<=i<10}', 'y[i] = 2*x[i]', { name: 'dosify' });
  const quadr = makeKernel(
    '{:}',
    `
    y[:] = dosify(x[:])
    y[:] = dosify(y[:])
    `,
    [globalArg('x,y', { shape: [10] })],
    { name: 'cuatroify', seqDependencies: true },
  );
  const prog = merge([quadr, twice]);
  assert.equal(prog.entrypoints, ['cuatroify', 'dosify']);
  const target = testDevices()[0].target;
  // 'dosify' is an entrypoint too, but nothing says the types of its arguments
  assert.throws(
    () => generateCode(programKernel(prog, 'dosify'), target),
    (e: unknown) => e instanceof LoomError,
  );
  assert.throws(
    () => generateCode(prog, target),
    (e: unknown) => e instanceof LoomError,
  );
});

test.run();
