/**
 * Ports of loopy's test/test_scan.py: scans written as reductions over a triangle
 * (`out[i] = sum(j, a[j])` with `0 <= j <= i`), segmented ones included. loopy's
 * `realize_reduction(force_scan=True)` turns such a reduction into a scan that carries its
 * accumulator from one i to the next; Loom has no `forceScan` (each output is its own
 * reduction), so these tests hold Loom to the scans' values, not to their cost. The tests of
 * force_scan's own errors (ReductionIsNotTriangularError) have no counterpart.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, fixParameters, globalArg, makeKernel, realizeReduction, run, tagInames, type Device, type DType } from '@loom/core';
import { assertClose, randomFloat32, testDevices } from '../support/devices.ts';

function holds(device: Device, dtype: DType, name: string): boolean {
  const why = device.target.unsupportedDType?.(dtype);
  if (why) console.warn(`loom: skipping ${name} on ${device.name}: ${dtype}: ${why}`);
  return !why;
}

/** Running sums (products, ...) of `xs`, every `stride`-th kept. */
function scanOf(xs: readonly number[], combine: (a: number, b: number) => number, stride = 1): number[] {
  const out: number[] = [];
  xs.reduce((acc, x, k) => {
    const next = k === 0 ? x : combine(acc, x);
    if (k % stride === 0) out.push(next);
    return next;
  }, 0);
  return out;
}
const add = (a: number, b: number) => a + b;

for (const device of testDevices()) {
  const on = device.name;

  for (const n of [1, 2, 3, 16]) {
    for (const stride of [1, 2]) {
      test(`${on}: test_scan.py::test_sequential_scan[${n}-${stride}]`, async () => {
        let knl = makeKernel(`[n] -> {[i,j]: 0<=i<n and 0<=j<=${stride}*i}`, 'a[i] = sum(j, j**2)');
        knl = realizeReduction(fixParameters(knl, { n }));
        const { a } = await run(knl, device, {});
        const squares = Array.from({ length: stride * (n - 1) + 1 }, (_, j) => j * j);
        assert.equal(Array.from(a as Int32Array), scanOf(squares, add, stride));
      });
    }
  }

  for (const [sweepLbound, scanLbound] of [
    [4, 0],
    [3, 1],
    [2, 2],
    [1, 3],
    [0, 4],
    [5, -1],
  ]) {
    test(`${on}: test_scan.py::test_scan_with_different_lower_bound_from_sweep[${sweepLbound}-${scanLbound}]`, async () => {
      let knl = makeKernel(
        '[n, sweep_lbound, scan_lbound] -> {[i,j]: sweep_lbound<=i<n+sweep_lbound and scan_lbound<=j<=2*(i-sweep_lbound)+scan_lbound}',
        'out[i-sweep_lbound] = sum(j, j**2)',
      );
      knl = fixParameters(knl, { sweep_lbound: sweepLbound, scan_lbound: scanLbound });
      const n = 10;
      const { out } = await run(knl, device, { n });
      const squares = Array.from({ length: 2 * n }, (_, k) => (k + scanLbound) ** 2);
      assert.equal(Array.from(out as Int32Array), scanOf(squares, add, 2).slice(0, n));
    });
  }

  test(`${on}: test_scan.py::test_dependent_domain_scan`, async () => {
    const knl = makeKernel(['[n] -> {[i]: 0<=i<n}', '{[j]: 0<=j<=2*i}'], 'a[i] = sum(j, j**2) {id=scan}');
    const { a } = await run(knl, device, { n: 100 });
    assert.equal(
      Array.from(a as Int32Array),
      scanOf(
        Array.from({ length: 200 }, (_, j) => j * j),
        add,
        2,
      ),
    );
  });

  test(`${on}: test_scan.py::test_nested_scan[for-for]`, async () => {
    // loopy fixes n = 10 after make_kernel; Loom sizes the temporary tmp[i] when the kernel is made
    let knl = makeKernel(['{[i]: 0 <= i < 10}', '[i] -> {[j]: 0 <= j <= i}', '[i] -> {[k]: 0 <= k <= i}'], ['<>tmp[i] = sum(k, 1)', 'out[i] = sum(j, tmp[j])']);
    knl = tagInames(knl, { i: 'for', j: 'for' });
    const { out } = await run(knl, device, {});
    // tmp[i] = i + 1, out[i] = sum of tmp[0..i]
    assert.equal(
      Array.from(out as Int32Array),
      scanOf(
        Array.from({ length: 10 }, (_, i) => i + 1),
        add,
      ),
    );
  });

  for (const n of [1, 2, 3, 16, 17]) {
    test(`${on}: test_scan.py::test_local_parallel_scan[${n}]`, async () => {
      let knl = makeKernel('[n] -> {[i,j]: 0<=i<n and 0<=j<=i}', 'out[i] = sum(j, a[j]**2)', [globalArg('a', { shape: ['n'] }), '...']);
      knl = addDtypes(tagInames(fixParameters(knl, { n }), { i: 'l.0' }), { a: 'int32' });
      const a = Int32Array.from({ length: n }, (_, k) => k);
      const { out } = await run(knl, device, { a });
      assert.equal(
        Array.from(out as Int32Array),
        scanOf(
          Array.from(a, (x) => x * x),
          add,
        ),
      );
    });
  }

  test(`${on}: test_scan.py::test_local_parallel_scan_with_nonzero_lower_bounds`, async () => {
    let knl = makeKernel('[n] -> {[i,j]: 1<=i<n+1 and 0<=j<=i-1}', 'out[i-1] = sum(j, a[j]**2)', [globalArg('a', { shape: ['n'] }), '...']);
    knl = addDtypes(tagInames(fixParameters(knl, { n: 16 }), { i: 'l.0' }), { a: 'int32' });
    const a = Int32Array.from({ length: 16 }, (_, k) => k + 1);
    const { out } = await run(knl, device, { a });
    assert.equal(
      Array.from(out as Int32Array),
      scanOf(
        Array.from(a, (x) => x * x),
        add,
      ),
    );
  });

  for (const tag of ['for', 'l.1']) {
    test(`${on}: test_scan.py::test_scan_with_outer_parallel_iname[${tag}]`, async () => {
      let knl = makeKernel(['{[k]: 0<=k<=1}', '[n] -> {[i,j]: 0<=i<n and 0<=j<=i}'], 'out[k,i] = k + sum(j, j**2)');
      knl = fixParameters(tagInames(knl, { k: 'l.0', i: tag }), { n: 10 });
      const { out } = await run(knl, device, {});
      const inner = scanOf(
        Array.from({ length: 10 }, (_, j) => j * j),
        add,
      );
      assert.equal(Array.from(out as Int32Array), [...inner, ...inner.map((x) => x + 1)]);
    });
  }

  for (const dtype of ['int32', 'int64', 'float32', 'float64'] as const) {
    test(`${on}: test_scan.py::test_scan_data_types[${dtype}]`, async () => {
      if (!holds(device, dtype, `test_scan_data_types[${dtype}]`)) return;
      const knl = addDtypes(makeKernel('{[i,j]: 0<=i<n and 0<=j<=i }', 'res[i] = reduce(sum, j, a[j])', undefined, { assumptions: 'n>=1' }), { a: dtype });
      const values = Array.from(randomFloat32(20, 42), (x) => (dtype.startsWith('int') ? Math.round(10 * x) : x));
      const a =
        dtype === 'int32'
          ? Int32Array.from(values)
          : dtype === 'int64'
            ? BigInt64Array.from(values, BigInt)
            : dtype === 'float32'
              ? Float32Array.from(values)
              : Float64Array.from(values);
      const { res } = await run(knl, device, { a, n: 20 });
      const got = Array.from(res as ArrayLike<number | bigint>, Number);
      assertClose(got, scanOf(Array.from(a as ArrayLike<number | bigint>, Number), add), dtype, 1e-6, 1e-6);
    });
  }

  const library: Record<string, (a: number, b: number) => number> = { sum: add, product: (a, b) => a * b, min: Math.min, max: Math.max };
  for (const [op, combine] of Object.entries(library)) {
    test(`${on}: test_scan.py::test_scan_library[${op}]`, async () => {
      if (!holds(device, 'float64', `test_scan_library[${op}]`)) return;
      const knl = addDtypes(makeKernel('{[i,j]: 0<=i<n and 0<=j<=i }', `res[i] = reduce(${op}, j, a[j])`, undefined, { assumptions: 'n>=1' }), { a: 'float64' });
      const a = Float64Array.from(randomFloat32(20, 42));
      const { res } = await run(knl, device, { a, n: 20 });
      assertClose(res as Float64Array, scanOf(Array.from(a), combine), op, 1e-12, 1e-12);
    });
  }

  for (const tag of ['for', 'l.0']) {
    test(`${on}: test_scan.py::test_argmax[${tag}]`, async () => {
      const n = 128;
      let knl = makeKernel(`{[i,j]: 0<=i<${n} and 0<=j<=i}`, 'max_vals[i], max_indices[i] = argmax(j, abs(a[j]), j)');
      knl = addDtypes(tagInames(knl, { i: tag }), { a: 'float32' });
      const a = randomFloat32(n, 42);
      const { max_vals, max_indices } = await run(knl, device, { a });
      const abs = Array.from(a, Math.abs);
      assert.equal(
        Array.from(max_vals as Float32Array),
        abs.map((_, i) => Math.max(...abs.slice(0, i + 1))),
      );
      assert.equal(
        Array.from(max_indices as Int32Array),
        abs.map((_, i) => abs.indexOf(Math.max(...abs.slice(0, i + 1)))),
      );
    });
  }

  const segments: [number, number[]][] = [
    [1, [0]],
    [2, [0]],
    [2, [0, 1]],
    [3, [0]],
    [3, [0, 1]],
    [3, [0, 2]],
    [3, [0, 1, 2]],
    [16, [0, 4, 8, 12]],
  ];
  for (const [n, starts] of segments) {
    for (const tag of ['for', 'l.0']) {
      test(`${on}: test_scan.py::test_segmented_scan[${tag}-${n}-${starts.join(',')}]`, async () => {
        let knl = makeKernel('{[i,j]: 0<=i<n and 0<=j<=i}', 'out[i], <>_ = reduce(segmented(sum), j, arr[j], segflag[j])', [
          globalArg('arr', { dtype: 'float32', shape: ['n'] }),
          globalArg('segflag', { dtype: 'int32', shape: ['n'] }),
          '...',
        ]);
        knl = tagInames(fixParameters(knl, { n }), { i: tag });
        const arr = new Float32Array(n).fill(1);
        const segflag = Int32Array.from({ length: n }, (_, k) => (starts.includes(k) ? 1 : 0));
        const { out } = await run(knl, device, { arr, segflag });
        // ones restarting at each boundary: the position within the segment, plus one
        let run0 = 0;
        assert.equal(
          Array.from(out as Float32Array),
          Array.from(segflag, (f) => (run0 = f ? 1 : run0 + 1)),
        );
      });
    }
  }
}

test.run();
