/**
 * Port of loopy's test/test_diff.py: `diffKernel` of a kernel with a temporary and a sum,
 * checked against finite differences as loopy does: the change of z predicted by the
 * derivative for a step h*dx, against the change computed (here by a plain-JavaScript z, in
 * float64), must lose its error as h shrinks (the prediction is right to first order).
 * n is 20 rather than loopy's 50: the derivative kernel's loops are n^4 iterations, run on one
 * work-item on every device.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addInamesToInsn, diffKernel, fixParameters, makeKernel, removeUnusedArguments, run } from '@loom/core';
import { supportsDType, testDevices } from '../support/devices.ts';

const n = 20;

/** Deterministic normal-ish values (a sum of uniforms), so failures reproduce. */
function normal(count: number, seed: number): number[] {
  let s = seed >>> 0 || 1;
  const uniform = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
  return Array.from({ length: count }, () => uniform() + uniform() + uniform() + uniform() - 2);
}

/** The kernel's z in plain JavaScript: z[i] = sum_j exp(a[i,j] x[j]), a[i,j] = 1/(1 + sinh(x[i] + y[j])^2). */
function zOf(x: readonly number[], y: readonly number[]): number[] {
  return x.map((xi) => {
    let sum = 0;
    for (let j = 0; j < n; j++) sum += Math.exp((1 / (1 + Math.sinh(xi + y[j]) ** 2)) * x[j]);
    return sum;
  });
}

const norm = (v: readonly number[]) => Math.hypot(...v);

for (const device of testDevices()) {
  test(`${device.name}: test_diff`, async () => {
    const float64 = supportsDType(device, 'float64');
    const Host = float64 ? Float64Array : Float32Array;
    let knl = makeKernel(
      '{ [i,j]: 0<=i,j<n }',
      `
      <> a = 1/(1+sinh(x[i] + y[j])**2)
      z[i] = sum(j, exp(a * x[j]))
      `,
      { name: 'diff' },
    );
    knl = fixParameters(knl, { n });

    const [diffed, diffMap] = diffKernel(knl, 'z', 'x');
    assert.equal([...diffMap], [['z', 'z_dx']]);
    let dknl = removeUnusedArguments(diffed);
    assert.not.ok(dknl.arg('z'), "z's own writer is not in the derivative kernel");
    dknl = addInamesToInsn(dknl, 'diff_i0', 'writes:a_dx or writes:a');

    const x = normal(n, 42);
    const y = normal(n, 43);
    const dx = normal(n, 44);

    // the kernel itself computes the z the finite differences are taken of
    const { z } = await run(knl, device, { x: Host.from(x), y: Host.from(y) });
    const z0 = zOf(x, y);
    Array.from(z as ArrayLike<number>).forEach((v, i) => {
      assert.ok(Math.abs(v - z0[i]) <= (float64 ? 1e-12 : 1e-5) * Math.abs(z0[i]), `z[${i}]: ${v} vs ${z0[i]}`);
    });

    const fac = 1e-1;
    // float32 derivatives carry errors of about 1e-6: steps of 1e-4 would leave them in the prediction's error
    const h1 = float64 ? 1e-4 : 1e-2;
    const h2 = h1 * fac;
    const z1 = zOf(
      x.map((v, k) => v + h1 * dx[k]),
      y,
    );
    const z2 = zOf(
      x.map((v, k) => v + h2 * dx[k]),
      y,
    );

    const { z_dx } = await run(dknl, device, { x: Host.from(x), y: Host.from(y) });
    const df = Array.from(z_dx as ArrayLike<number>);
    assert.is(df.length, n * n, 'z_dx is n x n: dz[i]/dx[k]');
    const dot = (h: number) =>
      Array.from({ length: n }, (_, i) => dx.reduce((sum, d, k) => sum + df[i * n + k] * h * d, 0));

    const diff1 = z1.map((v, i) => v - z0[i]);
    const diff2 = z2.map((v, i) => v - z0[i]);
    const pred1 = dot(h1);
    const pred2 = dot(h2);
    const err1 = norm(diff1.map((v, i) => v - pred1[i])) / norm(diff1);
    const err2 = norm(diff2.map((v, i) => v - pred2[i])) / norm(diff2);
    assert.ok(
      err2 < err1 * fac * 1.1,
      `the error does not shrink with the step: ${err1} at h=${h1}, ${err2} at h=${h2}`,
    );
    // and the prediction is right to first order: its error is of the order of the step
    assert.ok(err1 < 10 * h1, `the predicted change is off by ${err1} at h=${h1}`);
  });
}

test.run();
