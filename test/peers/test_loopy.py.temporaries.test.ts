/**
 * Ports of loopy's test/test_loopy.py tests of temporaries declared among the arguments
 * (`lp.TemporaryVariable` → `temporaryVariable`): initializers (constant tables), read-only
 * ones, global ones, base storage. Each runs on every test device against plain JavaScript.
 * Names are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addBarrier,
  addDtypes,
  fixParameters,
  generateCode,
  globalArg,
  LoomError,
  makeKernel,
  printExpr,
  run,
  saveAndReloadTemporaries,
  splitIname,
  tagInames,
  temporaryVariable,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { jsTarget } from '@loom/codegen-js';
import { preprocess } from '../../packages/core/src/preprocess/pipeline.ts';
import { supportsDType, testDevices } from '../support/devices.ts';

/** loopy's rng.normal stand-in: fixed, exactly representable values. */
const values = (n: number, seed: number) =>
  Float64Array.from({ length: n }, (_, k) => (((k * 7 + seed * 13) % 17) - 8) / 4);

for (const device of testDevices()) {
  test(`${device.name}: test_globals_decl_once_with_multi_subprogram`, async () => {
    if (!supportsDType(device, 'float64')) {
      console.log(`${device.name}: test_globals_decl_once_with_multi_subprogram needs float64 data, which WGSL lacks`);
      return;
    }
    const a = values(16, 1);
    const cnst = values(16, 2);
    let knl = makeKernel(
      '{[i, ii]: 0<=i, ii<n}',
      `out[i] = a[i]+cnst[i]{id=first}
       out[ii] = 2*out[ii]+cnst[ii]{id=second}`,
      [
        temporaryVariable('cnst', { initializer: cnst, addressSpace: 'global', readOnly: true }),
        globalArg('out', { isInput: false, shape: 'auto' }),
        '...',
      ],
    );
    knl = fixParameters(knl, { n: 16 });
    knl = addBarrier(knl, 'id:first', 'id:second');
    knl = splitIname(knl, 'i', 2, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = splitIname(knl, 'ii', 2, { outerTag: 'g.0', innerTag: 'l.0' });
    // the table is a global buffer of the call, written before the first of the two device kernels
    assert.is(generateCode(addDtypes(knl, { a: 'float64' }), openclTarget()).kernels.length, 2);
    const { out } = await run(knl, device, { a });
    assert.equal(
      Array.from(out as Float64Array),
      Array.from(a, (x, i) => 2 * (x + cnst[i]) + cnst[i]),
    );
  });

  for (const order of ['C', 'F'] as const) {
    test(`${device.name}: test_temp_initializer[tmp_order=${order}]`, async () => {
      // loopy's 3x3 initializer gives the shape (Loom's initializer is flat and row-major: the shape is given)
      const a = Float32Array.from(values(9, 3));
      let knl = makeKernel('{[i,j]: 0<=i,j<n}', 'out[i,j] = tmp[i,j]', [
        temporaryVariable('tmp', { initializer: a, shape: [3, 3], addressSpace: 'private', readOnly: true, order }),
        '...',
      ]);
      knl = fixParameters(knl, { n: 3 });
      const { out } = await run(knl, device, {});
      assert.equal(Array.from(out as Float32Array), Array.from(a));
    });
  }

  test(`${device.name}: test_global_tv_with_base_storage_across_gbarrier`, async () => {
    let knl = makeKernel(
      '{[i,j]: 0<=i,j<10}',
      `tmp[i] = i
       ... gbarrier
       out[j] = tmp[9-j]`,
      [temporaryVariable('tmp', { addressSpace: 'global', baseStorage: 'base' }), '...'],
      { seqDependencies: true },
    );
    knl = tagInames(knl, { i: 'g.0', j: 'g.0' });
    const { out } = await run(knl, device, {});
    assert.equal(
      Array.from(out as Int32Array),
      Array.from({ length: 10 }, (_, k) => 9 - k),
    );
  });

  test(`${device.name}: test_integer_reduction`, async () => {
    const n = 200;
    for (const dtype of ['int32', 'int64'] as const) {
      if (!supportsDType(device, dtype)) {
        console.log(`${device.name}: test_integer_reduction skips ${dtype}, which the target lacks`);
        continue;
      }
      const v = Array.from({ length: n }, (_, k) => (k * 389 + 17) % 1000);
      const table = temporaryVariable('var', { initializer: v, readOnly: true, addressSpace: 'private', dtype });
      const cases: [string, (x: number) => boolean][] = [
        ['max', (x) => x === Math.max(...v)],
        ['min', (x) => x === Math.min(...v)],
        ['sum', (x) => x === v.reduce((s, y) => s + y, 0)],
      ];
      for (const [kind, check] of cases) {
        const knl = makeKernel('{[k]: 0<=k<n}', `res = ${kind}(k, var[k])`, [
          table,
          globalArg('res', { dtype, shape: [] }),
          '...',
        ]);
        const { res } = await run(fixParameters(knl, { n }), device, {});
        assert.ok(
          check(Number((res as Int32Array | BigInt64Array)[0])),
          `${dtype} ${kind}: ${String((res as Int32Array)[0])}`,
        );
      }
    }
  });
}

test('test_const_temp_with_initializer_not_saved', () => {
  const knl = makeKernel(
    '{[i]: 0<=i<10}',
    `... gbarrier
     out[i] = tmp[i]`,
    [
      temporaryVariable('tmp', {
        initializer: Int32Array.from({ length: 10 }, (_, k) => k),
        addressSpace: 'private',
        readOnly: true,
      }),
      '...',
    ],
    { seqDependencies: true },
  );
  // no save slot was added: the table is in every device kernel that reads it
  assert.is(saveAndReloadTemporaries(preprocess(knl)).temporaries.size, 1);
});

test('a constant table is constant data in each target, declared where it is used', () => {
  const knl = fixParameters(
    makeKernel('{[i]: 0<=i<n}', 'out[i] = tbl[i]', [
      temporaryVariable('tbl', { initializer: Float32Array.of(0.5, -2, 8), readOnly: true }),
      '...',
    ]),
    {
      n: 3,
    },
  );
  assert.match(generateCode(knl, openclTarget()).code, /float const tbl\[3\] = \{ 0\.5f, -2\.0f, 8\.0f \};/);
  assert.match(generateCode(knl, wgslTarget()).code, /var tbl: array<f32, 3> = array<f32, 3>\(0\.5, -2\.0, 8\.0\);/);
  assert.match(generateCode(knl, jsTarget()).code, /const tbl = Float32Array\.of\(0\.5, -2, 8\);/);
  assert.equal(knl.temporaries.get('tbl')?.shape.map(printExpr), ['3']);
});

test('temporaryVariable refuses what loopy refuses, and what Loom cannot honour', () => {
  const refuses = (make: () => unknown, pattern: RegExp) =>
    assert.throws(make, (e: unknown) => e instanceof LoomError && pattern.test(e.message));
  const k =
    (spec: Parameters<typeof temporaryVariable>[1], text = 'out[i] = t[i]') =>
    () =>
      makeKernel('{[i]: 0<=i<3}', text, [temporaryVariable('t', spec), '...']);
  refuses(k({ initializer: Float32Array.of(1, 2, 3) }), /must be read-only \(readOnly: true\), as in loopy/);
  refuses(
    k({ initializer: Float32Array.of(1, 2, 3), readOnly: true, baseStorage: 'b' }),
    /an initializer and a base storage exclude each other/,
  );
  refuses(
    k({ initializer: Float32Array.of(1, 2, 3), readOnly: true, addressSpace: 'local' }),
    /local memory cannot be initialized/,
  );
  refuses(k({ initializer: [1, 2, 3], readOnly: true }), /give the dtype of its initializer/);
  refuses(
    k({ initializer: Float32Array.of(1, 2, 3), readOnly: true, shape: [2, 2] }),
    /the shape \(2, 2\) holds 4 values, the initializer 3/,
  );
  refuses(
    k({ initializer: Float32Array.of(1, 2, 3), readOnly: true, dtype: 'int32' }),
    /the initializer is a Float32Array \(float32\), but the dtype is int32/,
  );
  refuses(k({ readOnly: true, dtype: 'float32', shape: [3] }, 't[i] = 1'), /writes 't', which is declared read-only/);
  refuses(() => temporaryVariable('t', { readonly: true } as never), /unknown option 'readonly'/);
});

test.run();
