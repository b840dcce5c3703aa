/**
 * The tutorial's kernels, from "Getting started" to "Loop nesting", on every device
 * present, for sizes that catch off-by-one and rounding mistakes. The kernels come from
 * support/golden-kernels.ts, which also pins their generated code (golden.test.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { run } from '@loom/core';
import { assertClose, randomFloat32, supportsDType, testDevices } from './support/devices.ts';
import { tutorialKernels } from './support/golden-kernels.ts';

const SIZES = [1, 2, 7, 13, 64, 257];

for (const device of testDevices()) {
  test(`${device.name}: out = 2*a (double a vector)`, async () => {
    const knl = tutorialKernels.double();
    for (const n of SIZES) {
      const a = randomFloat32(n, n);
      const { out } = await run(knl, device, { a });
      assert.instance(out, Float32Array);
      assert.equal(
        Array.from(out as Float32Array),
        Array.from(a, (x) => Math.fround(2 * x)),
        `n=${n}`,
      );
    }
  });

  test(`${device.name}: the wrong transpose-and-double computes what the tutorial says`, async () => {
    const knl = tutorialKernels.wrongTransposeAndDouble();
    const n = 5;
    const a = randomFloat32(n * n, 3);
    const { out } = await run(knl, device, { a });
    // simulate the generated loop nest in plain JS: both statements inside one (i, j) nest
    const expected = new Float32Array(n * n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        expected[j * n + i] = a[i * n + j];
        expected[i * n + j] = Math.fround(2 * expected[i * n + j]);
      }
    }
    assert.equal(Array.from(out as Float32Array), Array.from(expected));
    const transposedTwice = Array.from({ length: n * n }, (_, k) =>
      Math.fround(2 * a[(k % n) * n + Math.floor(k / n)]),
    );
    assert.not.equal(Array.from(out as Float32Array), transposedTwice);
  });

  test(`${device.name}: the corrected transpose-and-double`, async () => {
    const knl = tutorialKernels.transposeAndDouble();
    for (const n of [1, 3, 16, 31]) {
      const a = randomFloat32(n * n, n);
      const { out } = await run(knl, device, { a });
      const expected = Array.from({ length: n * n }, (_, k) => Math.fround(2 * a[(k % n) * n + Math.floor(k / n)]));
      assert.equal(Array.from(out as Float32Array), expected, `n=${n}`);
    }
  });

  test(`${device.name}: zero fill with prioritizeLoops(knl, "j,i"), written in place`, async () => {
    const knl = tutorialKernels.zeroFill();
    const n = 9;
    const a = randomFloat32(n * n, 9);
    const { a: result } = await run(knl, device, { a });
    assert.is(result, a);
    assert.ok(a.every((v) => v === 0));
  });

  test(`${device.name}: a reduction (matrix-vector product)`, async () => {
    const knl = tutorialKernels.matvec();
    const n = 7;
    const m = 13;
    const A = randomFloat32(n * m, 5);
    const x = randomFloat32(m, 6);
    const { y } = await run(knl, device, { A, x, n });
    const expected = Array.from({ length: n }, (_, i) => {
      let s = 0;
      for (let k = 0; k < m; k++) s = Math.fround(s + Math.fround(A[i * m + k] * x[k]));
      return s;
    });
    assertClose(y as Float32Array, expected, 'y', 1e-5, 1e-6);
  });

  test(`${device.name}: product, max and min reductions on int32`, async () => {
    const knl = tutorialKernels.intReductions();
    const a = Int32Array.from([1, -2, 3, 4, 5, 6, -7, 8, 0, 1, 2, 3]);
    const res = await run(knl, device, { a });
    assert.equal(Array.from(res.pr as Int32Array), [-24, -1680, 0]);
    assert.equal(Array.from(res.mx as Int32Array), [4, 8, 3]);
    assert.equal(Array.from(res.mn as Int32Array), [-2, -7, 0]);
  });

  test(`${device.name}: <> temporaries`, async () => {
    const knl = tutorialKernels.temporaries();
    const a = randomFloat32(11, 4);
    const { out } = await run(knl, device, { a });
    assertClose(
      out as Float32Array,
      Array.from(a, (x) => (x * x + 1) / 2),
      'out',
      1e-6,
    );
  });

  test(`${device.name}: a triangular domain 0 <= j <= i < n`, async () => {
    const knl = tutorialKernels.triangular();
    const n = 6;
    const a = randomFloat32(n, 8);
    const out = new Float32Array(n * n).fill(-100);
    await run(knl, device, { a, out });
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const expected = j <= i ? Math.fround(a[i] + j) : -100;
        assert.is(out[i * n + j], expected, `(${i}, ${j})`);
      }
    }
  });

  test(`${device.name}: mod and exists domains`, async () => {
    const everyThird = tutorialKernels.everyThird();
    const out = new Int32Array(10);
    await run(everyThird, device, { out });
    assert.equal(Array.from(out), [1, 0, 0, 1, 0, 0, 1, 0, 0, 1]);
    const evens = tutorialKernels.evens();
    const out2 = new Int32Array(7).fill(-1);
    await run(evens, device, { out: out2 });
    assert.equal(Array.from(out2), [0, -1, 2, -1, 4, -1, 6]);
  });

  test(`${device.name}: int32 and float64 data`, async () => {
    const knl = tutorialKernels.intArithmetic();
    const a = Int32Array.from([1, -2, 3, 1000000, -7]);
    const b = Int32Array.from([5, -5, 0, 7, -1]);
    const { out } = await run(knl, device, { a, b });
    const floorDiv = (x: number, y: number) => Math.floor(x / y);
    const mod = (x: number, y: number) => x - y * Math.floor(x / y);
    assert.equal(
      Array.from(out as Int32Array),
      Array.from(a, (x, k) => 3 * x - floorDiv(b[k], 2) + mod(b[k], 3)),
    );
    const d = tutorialKernels.float64Sqrt();
    const x = Float64Array.from([0, 1, 2, 1e10, 0.5]);
    if (!supportsDType(device, 'float64')) {
      // WGSL has no 64-bit floats: a clear error naming the argument, before anything runs
      await run(d, device, { a: x }).then(
        () => assert.unreachable('float64 should be rejected'),
        (e) => assert.match(String(e), /argument 'a' has dtype float64/),
      );
      return;
    }
    const res = await run(d, device, { a: x });
    assert.instance(res.out, Float64Array);
    assertClose(
      res.out as Float64Array,
      Array.from(x, (v) => Math.sqrt(v) * 0.1),
      'float64',
      1e-15,
      0,
    );
  });
}

test.run();
