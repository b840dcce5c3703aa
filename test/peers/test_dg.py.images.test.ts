/**
 * Port of the image variant of loopy's test/test_dg.py::test_dg_volume (`variant_image_d`:
 * the differentiation matrices `DrDsDt` read through an image, `change_arg_to_image`), on every
 * test device against plain JavaScript, as `auto_test_vs_ref` checks it against the sequential
 * kernel. loopy's float4 elements are a last axis of four components here (test/peers/README.md).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  changeArgToImage,
  fixParameters,
  globalArg,
  makeKernel,
  run,
  splitIname,
  tagInames,
  targetFacts,
  valueArg,
} from '@loom/core';
import { assertClose, randomFloat32, testDevices } from '../support/devices.ts';

const N = 3;
const Np = ((N + 1) * (N + 2) * (N + 3)) / 6;
const K = 30;

/** loopy's dg_volume, with each float4 `v` written as `v[c]` over its four components `c`. */
function dgVolume() {
  return makeKernel(
    '{ [n, m, k, c]: 0<=n,m<Np and 0<=k<K and 0<=c<4 }',
    `
      <> du_drst[c] = sum(m, DrDsDt[n, m, c]*u[k, m])
      <> dv_drst[c] = sum(m, DrDsDt[n, m, c]*v[k, m])
      <> dw_drst[c] = sum(m, DrDsDt[n, m, c]*w[k, m])
      <> dp_drst[c] = sum(m, DrDsDt[n, m, c]*p[k, m])
      rhsu[k, n] = sum(c, drst_dx[k, c]*dp_drst[c])
      rhsv[k, n] = sum(c, drst_dy[k, c]*dp_drst[c])
      rhsw[k, n] = sum(c, drst_dz[k, c]*dp_drst[c])
      rhsp[k, n] = sum(c, drst_dx[k, c]*du_drst[c]) + sum(c, drst_dy[k, c]*dv_drst[c]) + sum(c, drst_dz[k, c]*dw_drst[c])
    `,
    [
      ...['u', 'v', 'w', 'p', 'rhsu', 'rhsv', 'rhsw', 'rhsp'].map((a) =>
        globalArg(a, { dtype: 'float32', shape: 'K, Np' }),
      ),
      globalArg('DrDsDt', { dtype: 'float32', shape: 'Np, Np, 4' }),
      ...['drst_dx', 'drst_dy', 'drst_dz'].map((a) => globalArg(a, { dtype: 'float32', shape: 'K, 4' })),
      valueArg('K', 'int32'),
    ],
    { name: 'dg_volume', assumptions: 'K>=1' },
  );
}

/** The sequential kernel's values, in plain JS (each sum in float32, in the kernel's order). */
function reference(data: Record<string, Float32Array>): Record<string, Float32Array> {
  const { DrDsDt } = data;
  const out: Record<string, Float32Array> = {};
  for (const name of ['rhsu', 'rhsv', 'rhsw', 'rhsp']) out[name] = new Float32Array(K * Np);
  const dot = (d: Float32Array, k: number, x: readonly number[]) => {
    let s = 0;
    for (let c = 0; c < 4; c++) s = Math.fround(s + Math.fround(d[k * 4 + c] * x[c]));
    return s;
  };
  for (let k = 0; k < K; k++)
    for (let n = 0; n < Np; n++) {
      const [du, dv, dw, dp] = ['u', 'v', 'w', 'p'].map((f) =>
        [0, 1, 2, 3].map((c) => {
          let s = 0;
          for (let m = 0; m < Np; m++)
            s = Math.fround(s + Math.fround(DrDsDt[(n * Np + m) * 4 + c] * data[f][k * Np + m]));
          return s;
        }),
      );
      out.rhsu[k * Np + n] = dot(data.drst_dx, k, dp);
      out.rhsv[k * Np + n] = dot(data.drst_dy, k, dp);
      out.rhsw[k * Np + n] = dot(data.drst_dz, k, dp);
      out.rhsp[k * Np + n] = Math.fround(
        Math.fround(dot(data.drst_dx, k, du) + dot(data.drst_dy, k, dv)) + dot(data.drst_dz, k, dw),
      );
    }
  return out;
}

for (const device of testDevices()) {
  test(`${device.name}: test_dg_volume (variant_image_d)`, async () => {
    let knl = fixParameters(dgVolume(), { Np });
    knl = tagInames(knl, { n: 'l.0' });
    knl = splitIname(knl, 'k', 3, { outerTag: 'g.0', innerTag: 'l.1' });
    knl = changeArgToImage(knl, 'DrDsDt');
    assert.equal(knl.arg('DrDsDt')?.kind, 'image');
    const data: Record<string, Float32Array> = { DrDsDt: randomFloat32(Np * Np * 4, 7) };
    ['u', 'v', 'w', 'p'].forEach((f, s) => {
      data[f] = randomFloat32(K * Np, 11 + s);
    });
    ['drst_dx', 'drst_dy', 'drst_dz'].forEach((f, s) => {
      data[f] = randomFloat32(K * 4, 23 + s);
    });
    const expected = reference(data);
    if (typeof targetFacts(device.target).images === 'object') {
      // CUDA: texture objects are not made (the refusal names them)
      await run(knl, device, { ...data, K }).then(
        () => assert.unreachable('CUDA has no images'),
        (e: Error) => assert.match(e.message, /texture objects/),
      );
      return;
    }
    const result = await run(knl, device, { ...data, K });
    for (const name of ['rhsu', 'rhsv', 'rhsw', 'rhsp'])
      assertClose(result[name] as Float32Array, expected[name], `${device.name}: ${name}`, 1e-5, 1e-5);
  });
}

test.run();
