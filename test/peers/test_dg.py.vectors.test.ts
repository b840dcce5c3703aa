/**
 * Port of loopy's test/test_dg.py (issue 27, "Arrays and arguments"): the volume term of a
 * discontinuous Galerkin operator, whose derivative matrices and geometric factors are
 * `float4` elements read whole and combined with `dot()`. Each of loopy's variants runs on
 * every test device against plain JavaScript; departures are in README.md.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addPadding,
  addPrefetch,
  findPaddingMultiple,
  fixParameters,
  globalArg,
  LoomError,
  makeKernel,
  run,
  splitArrayAxis,
  splitIname,
  tagInames,
  valueArg,
  type LoopKernel,
} from '@loom/core';
import { assertClose, randomFloat32, testDevices } from '../support/devices.ts';

const N = 3;
const Np = ((N + 1) * (N + 2) * (N + 3)) / 6;
const FIELDS = ['u', 'v', 'w', 'p'];
const OUTPUTS = FIELDS.map((f) => `rhs${f}`);

/** loopy's `dg_volume`, `Np` fixed as loopy fixes it. */
function dgVolume(): LoopKernel {
  const knl = makeKernel(
    '{[n,m,k]: 0<= n,m < Np and 0<= k < K}',
    `
      <> du_drst = simul_reduce(sum, m, DrDsDt[n,m]*u[k,m])
      <> dv_drst = simul_reduce(sum, m, DrDsDt[n,m]*v[k,m])
      <> dw_drst = simul_reduce(sum, m, DrDsDt[n,m]*w[k,m])
      <> dp_drst = simul_reduce(sum, m, DrDsDt[n,m]*p[k,m])

      # volume flux
      rhsu[k,n] = dot(drst_dx[k],dp_drst)
      rhsv[k,n] = dot(drst_dy[k],dp_drst)
      rhsw[k,n] = dot(drst_dz[k],dp_drst)
      rhsp[k,n] = dot(drst_dx[k], du_drst) + dot(drst_dy[k], dv_drst) \
          + dot(drst_dz[k], dw_drst)
    `,
    [
      ...[...FIELDS, ...OUTPUTS].map((name) => globalArg(name, { dtype: 'float32', shape: 'K, Np', order: 'C' })),
      globalArg('DrDsDt', { dtype: 'float4', shape: 'Np, Np', order: 'C' }),
      ...['drst_dx', 'drst_dy', 'drst_dz'].map((name) => globalArg(name, { dtype: 'float4', shape: 'K', order: 'F' })),
      valueArg('K', 'int32'),
    ],
    { name: 'dg_volume', assumptions: 'K>=1' },
  );
  return fixParameters(knl, { Np });
}

const moreWorkItems = (knl: LoopKernel) =>
  splitIname(tagInames(knl, { n: 'l.0' }), 'k', 3, { outerTag: 'g.0', innerTag: 'l.1' });

/** loopy's variants, by its names (variant_image_d is left out: README.md). */
const VARIANTS: Record<string, (knl: LoopKernel) => LoopKernel> = {
  variant_basic: (knl) => tagInames(knl, { k: 'g.0', n: 'l.0' }),
  variant_more_per_work_group: moreWorkItems,
  variant_prefetch_d: (knl) =>
    addPrefetch(moreWorkItems(knl), 'DrDsDt[:,:]', [], { fetchOuterInames: 'k_outer', defaultTag: 'l.auto' }),
  variant_prefetch_fields: (knl) => {
    knl = moreWorkItems(knl);
    for (const name of FIELDS) knl = addPrefetch(knl, `${name}[k,:]`, ['k_inner'], { defaultTag: 'l.auto' });
    return knl;
  },
  variant_k_ilp: (knl) => {
    knl = splitIname(tagInames(knl, { n: 'l.0' }), 'k', 3, { outerTag: 'g.0', innerTag: 'ilp' });
    return tagInames(knl, { m: 'unr' });
  },
  variant_simple_padding: (knl) => {
    knl = moreWorkItems(knl);
    for (const name of [...FIELDS, ...OUTPUTS]) knl = addPadding(knl, name, 0, 32);
    return tagInames(knl, { m: 'unr' });
  },
  variant_fancy_padding: (knl) => {
    knl = tagInames(knl, { n: 'l.0' });
    const padMult = findPaddingMultiple(knl, 'u', 1, 32);
    for (const name of [...FIELDS, ...OUTPUTS]) knl = splitArrayAxis(knl, name, 0, padMult);
    return knl;
  },
};

type Inputs = Record<string, Float32Array>;

/** The volume term in plain JavaScript: a float4 element is 4 adjacent floats. */
function reference(K: number, x: Inputs): Record<string, Float64Array> {
  const out = Object.fromEntries(OUTPUTS.map((o) => [o, new Float64Array(K * Np)]));
  const dot = (a: Float32Array, k: number, b: number[]) => b.reduce((s, bl, l) => s + a[4 * k + l] * bl, 0);
  for (let k = 0; k < K; k++)
    for (let n = 0; n < Np; n++) {
      const d = Object.fromEntries(
        FIELDS.map((f) => [
          f,
          [0, 1, 2, 3].map((l) => {
            let s = 0;
            for (let m = 0; m < Np; m++) s += x.DrDsDt[4 * (n * Np + m) + l] * x[f][k * Np + m];
            return s;
          }),
        ]),
      );
      out.rhsu[k * Np + n] = dot(x.drst_dx, k, d.p);
      out.rhsv[k * Np + n] = dot(x.drst_dy, k, d.p);
      out.rhsw[k * Np + n] = dot(x.drst_dz, k, d.p);
      out.rhsp[k * Np + n] = dot(x.drst_dx, k, d.u) + dot(x.drst_dy, k, d.v) + dot(x.drst_dz, k, d.w);
    }
  return out;
}

/** A (K, Np) array laid out with `stride` floats per row (addPadding's layout), and back. */
const padRows = (a: Float32Array, K: number, stride: number) => {
  // as long as the layout reaches: the last row is not padded
  const out = new Float32Array((K - 1) * stride + Np);
  for (let k = 0; k < K; k++) out.set(a.subarray(k * Np, (k + 1) * Np), k * stride);
  return out;
};
const unpadRows = (a: Float32Array, K: number, stride: number) =>
  Float32Array.from({ length: K * Np }, (_, i) => a[Math.floor(i / Np) * stride + (i % Np)]);

for (const device of testDevices()) {
  test(`${device.name}: test_dg_volume`, async () => {
    const K = 40; // loopy runs 10000; a multiple of the fancy variant's 8 as 10000 is
    const x: Inputs = {
      DrDsDt: randomFloat32(4 * Np * Np, 1),
      drst_dx: randomFloat32(4 * K, 2),
      drst_dy: randomFloat32(4 * K, 3),
      drst_dz: randomFloat32(4 * K, 4),
    };
    FIELDS.forEach((f, i) => {
      x[f] = randomFloat32(K * Np, 5 + i);
    });
    const expected = reference(K, x);
    for (const [name, variant] of [['reference', (k: LoopKernel) => k] as const, ...Object.entries(VARIANTS)]) {
      const knl = variant(dgVolume());
      // the padded variant's rows are 32-byte aligned on the host too
      const stride = name === 'variant_simple_padding' ? Math.ceil((Np * 4) / 32) * 8 : Np;
      // a padded array is passed as its buffer, gaps and all, as loopy's host arrays have the
      // padded strides; a padded output nobody passed comes back as its whole buffer too
      const given = { ...x, ...Object.fromEntries(FIELDS.map((f) => [f, padRows(x[f], K, stride)])) };
      const out = await run(knl, device, { ...given, K });
      for (const o of OUTPUTS) {
        const got = out[o] as Float32Array;
        assert.is(got.length, (K - 1) * stride + Np, `${name}: ${o} is as long as its layout reaches`);
        const logical = stride === Np ? got : unpadRows(got, K, stride);
        assertClose(logical, expected[o], `${name}: ${o}`, 1e-4, 1e-5);
      }
    }
  });

  test(`${device.name}: test_dg_volume: components, a <float4> temporary, vectors by scalars`, async () => {
    const knl = makeKernel(
      '{[i]: 0<=i<n}',
      `
        <float4> t = 2*a[i] - b[i]
        <> s = sqrt(t*t) + 1.5
        out[i] = s
        y[i] = t.y + s.w + dot(a[i], b[i])
      `,
      [
        globalArg('a, b, out', { dtype: 'float4', shape: ['n'] }),
        globalArg('y', { dtype: 'float32', shape: ['n'] }),
        valueArg('n', 'int32'),
      ],
    );
    const n = 50;
    const a = randomFloat32(4 * n, 1);
    const b = randomFloat32(4 * n, 2);
    const result = await run(splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' }), device, { a, b, n });
    const t = (k: number) => 2 * a[k] - b[k];
    const s = (k: number) => Math.sqrt(t(k) * t(k)) + 1.5;
    assertClose(
      result.out as Float32Array,
      Array.from(a, (_, k) => s(k)),
      'out',
      1e-5,
      1e-5,
    );
    const expectedY = Array.from({ length: n }, (_, i) => {
      const d = [0, 1, 2, 3].reduce((acc, l) => acc + a[4 * i + l] * b[4 * i + l], 0);
      return t(4 * i + 1) + s(4 * i + 3) + d;
    });
    assertClose(result.y as Float32Array, expectedY, 'y', 1e-5, 1e-5);
  });
}

test('test_dg_volume: what has no lane-by-lane meaning is a LoomError', () => {
  const make = (insns: string) =>
    makeKernel('{[i]: 0<=i<4}', insns, [
      globalArg('a, b', { dtype: 'float4', shape: [4] }),
      globalArg('c', { dtype: 'float2', shape: [4] }),
      globalArg('y', { dtype: 'float32', shape: [4] }),
    ]);
  for (const [insns, why] of [
    ['y[i] = a[i]', /stores a vector of 4 lanes into 'y\[i\]', which holds scalars/],
    ['y[i] = dot(a[i], c[i])', /dot\(\) takes two vectors of as many lanes, got 4 and 2/],
    ['y[i] = dot(a[i], 2.0)', /dot\(\) takes two vectors of as many lanes, got 4 and a scalar/],
    ['y[i] = if(a[i] < b[i], 1, 0)', /'<' \(vectors are not compared here/],
    ['y[i] = a[i] + c[i]', /combines vectors of 4 and 2 lanes/],
    ['y[i] = y[a[i]]', /an index of 'y' must be a scalar/],
    ['<> t = a[i]\nt = t * dot(t, b[i])\ny[i] = t.x', /from its own lanes across/],
    ['f(x) := 2*x\ny[i] = f(a[i])', /an argument of f\(\) \(a rule or user function takes scalars\)/],
  ] as const) {
    assert.throws(
      () => make(insns),
      (e: unknown) => e instanceof LoomError && why.test(String(e)),
      insns,
    );
  }
});

test.run();
