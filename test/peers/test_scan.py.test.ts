/**
 * Ports of loopy's test/test_scan.py: scans written as reductions over a triangle
 * (`out[i] = sum(j, a[j])` with `0 <= j <= i`), segmented ones and argmax included.
 * `realizeReduction(knl, { forceScan: true })` (loopy's `realize_reduction(force_scan=True)`)
 * turns such a reduction into a scan that carries its accumulator from one i to the next: a
 * loop when i is sequential, a scan in local memory when i is tagged l.N. Each test checks
 * both the values (against plain JS) and that the realized kernel is a scan (`assertScan`:
 * the reduced iname no longer runs, and the values are folded O(n) times, not once per output).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  card,
  fixParameters,
  globalArg,
  LoomError,
  makeKernel,
  realizeReduction,
  ReductionIsNotTriangularError,
  run,
  tagInames,
  type Device,
  type DType,
  type LoopKernel,
} from '@loom/core';
import { generateCode } from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { kernel } from '@loom/dsl';
import { domainOf } from '../../packages/core/src/kernel/domains.ts';
import { assertClose, randomFloat32, testDevices } from '../support/devices.ts';

/**
 * That `knl`, realized, is a scan swept by `sweep`: the reduced iname `scanned` runs no more,
 * and the instructions that fold values in run over the tracking iname (`<sweep>_scan`)
 * `folds` times in all (at the parameter values `params`), once per scanned value: O(n), where
 * a reduction per output folds O(n²). A sequential sweep starts its accumulator once, outside
 * the sweep; a local one combines the work-items' results in local memory.
 */
function assertScan(
  knl: LoopKernel,
  sweep: string,
  scanned: string,
  folds: number,
  params: Record<string, number> = {},
): void {
  assert.not.ok(
    knl.instructions.some((i) => i.withinInames.includes(scanned)),
    `'${scanned}' still runs`,
  );
  const track = knl.inames.filter((n) => n.startsWith(`${sweep}_scan`));
  assert.ok(track.length > 0, `a tracking iname for '${sweep}'`);
  const tracked = (i: LoopKernel['instructions'][number]) => track.some((t) => i.withinInames.includes(t));
  const updates = knl.instructions.filter(tracked);
  assert.ok(updates.length > 0);
  for (const u of updates)
    assert.equal(
      card(domainOf(knl, u.withinInames)).evalWithDict(params),
      folds,
      `${u.id} folds once per scanned value`,
    );
  const accs = updates.flatMap((u) => u.assignees.map((a) => (a.kind === 'var' ? a.name : '')));
  const starts = knl.instructions.filter(
    (i) => i.assignees.some((a) => a.kind === 'var' && accs.includes(a.name)) && !tracked(i),
  );
  if (knl.inameTags.get(sweep)?.kind === 'local') {
    assert.ok(
      [...knl.temporaries.values()].some((t) => t.addressSpace === 'local'),
      'a local scan works in local memory',
    );
  } else {
    assert.ok(
      starts.length > 0 && starts.every((i) => !i.withinInames.includes(sweep)),
      'the accumulator starts outside the sweep',
    );
  }
}

const scanned = (knl: LoopKernel) => realizeReduction(knl, { forceScan: true });

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
        knl = scanned(fixParameters(knl, { n }));
        assertScan(knl, 'i', 'j', stride * (n - 1) + 1);
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
      knl = scanned(fixParameters(knl, { sweep_lbound: sweepLbound, scan_lbound: scanLbound }));
      const n = 10;
      assertScan(knl, 'i', 'j', 2 * (n - 1) + 1, { n });
      const { out } = await run(knl, device, { n });
      const squares = Array.from({ length: 2 * n }, (_, k) => (k + scanLbound) ** 2);
      assert.equal(Array.from(out as Int32Array), scanOf(squares, add, 2).slice(0, n));
    });
  }

  test(`${on}: test_scan.py::test_dependent_domain_scan`, async () => {
    const knl = scanned(makeKernel(['[n] -> {[i]: 0<=i<n}', '{[j]: 0<=j<=2*i}'], 'a[i] = sum(j, j**2) {id=scan}'));
    assertScan(knl, 'i', 'j', 199, { n: 100 });
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
    let knl = makeKernel(
      ['{[i]: 0 <= i < 10}', '[i] -> {[j]: 0 <= j <= i}', '[i] -> {[k]: 0 <= k <= i}'],
      ['<>tmp[i] = sum(k, 1)', 'out[i] = sum(j, tmp[j])'],
    );
    knl = scanned(tagInames(knl, { i: 'for', j: 'for' }));
    assert.not.ok(knl.instructions.some((i) => i.withinInames.includes('k')));
    assertScan(knl, 'i', 'j', 10);
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
      let knl = makeKernel('[n] -> {[i,j]: 0<=i<n and 0<=j<=i}', 'out[i] = sum(j, a[j]**2)', [
        globalArg('a', { shape: ['n'] }),
        '...',
      ]);
      knl = scanned(addDtypes(tagInames(fixParameters(knl, { n }), { i: 'l.0' }), { a: 'int32' }));
      assertScan(knl, 'i', 'j', n);
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
    let knl = makeKernel('[n] -> {[i,j]: 1<=i<n+1 and 0<=j<=i-1}', 'out[i-1] = sum(j, a[j]**2)', [
      globalArg('a', { shape: ['n'] }),
      '...',
    ]);
    knl = scanned(addDtypes(tagInames(fixParameters(knl, { n: 16 }), { i: 'l.0' }), { a: 'int32' }));
    assertScan(knl, 'i', 'j', 16);
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
      knl = scanned(fixParameters(tagInames(knl, { k: 'l.0', i: tag }), { n: 10 }));
      assertScan(knl, 'i', 'j', 20);
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
      const knl = scanned(
        addDtypes(
          makeKernel('{[i,j]: 0<=i<n and 0<=j<=i }', 'res[i] = reduce(sum, j, a[j])', undefined, {
            assumptions: 'n>=1',
          }),
          { a: dtype },
        ),
      );
      assertScan(knl, 'i', 'j', 20, { n: 20 });
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

  const library: Record<string, (a: number, b: number) => number> = {
    sum: add,
    product: (a, b) => a * b,
    min: Math.min,
    max: Math.max,
  };
  for (const [op, combine] of Object.entries(library)) {
    test(`${on}: test_scan.py::test_scan_library[${op}]`, async () => {
      if (!holds(device, 'float64', `test_scan_library[${op}]`)) return;
      const knl = scanned(
        addDtypes(
          makeKernel('{[i,j]: 0<=i<n and 0<=j<=i }', `res[i] = reduce(${op}, j, a[j])`, undefined, {
            assumptions: 'n>=1',
          }),
          { a: 'float64' },
        ),
      );
      assertScan(knl, 'i', 'j', 20, { n: 20 });
      const a = Float64Array.from(randomFloat32(20, 42));
      const { res } = await run(knl, device, { a, n: 20 });
      assertClose(res as Float64Array, scanOf(Array.from(a), combine), op, 1e-12, 1e-12);
    });
  }

  for (const tag of ['for', 'l.0']) {
    test(`${on}: test_scan.py::test_argmax[${tag}]`, async () => {
      const n = 128;
      let knl = makeKernel(`{[i,j]: 0<=i<${n} and 0<=j<=i}`, 'max_vals[i], max_indices[i] = argmax(j, abs(a[j]), j)');
      knl = scanned(addDtypes(tagInames(knl, { i: tag }), { a: 'float32' }));
      assertScan(knl, 'i', 'j', n);
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
        let knl = makeKernel(
          '{[i,j]: 0<=i<n and 0<=j<=i}',
          'out[i], <>_ = reduce(segmented(sum), j, arr[j], segflag[j])',
          [
            globalArg('arr', { dtype: 'float32', shape: ['n'] }),
            globalArg('segflag', { dtype: 'int32', shape: ['n'] }),
            '...',
          ],
        );
        knl = scanned(tagInames(fixParameters(knl, { n }), { i: tag }));
        assertScan(knl, 'i', 'j', n);
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

  test(`${on}: test_scan.py::test_force_outer_iname_for_scan`, async () => {
    // loopy refuses this without force_outer_iname_for_scan (its test says "maybe this
    // deserves to work?"); Loom finds the sweep 'i' itself: both realize the same scan
    let knl = makeKernel('[n] -> {[i,j,k]: 0<=k<n and 0<=i<=k and 0<=j<=i}', 'out[i] = product(j, a[j]) {inames=i:k}');
    knl = fixParameters(addDtypes(knl, { a: 'float32' }), { n: 6 });
    const forced = realizeReduction(knl, { forceScan: true, forceOuterInameForScan: 'i' });
    assertScan(forced, 'i', 'j', 21);
    assertScan(scanned(knl), 'i', 'j', 21);
    const a = Float32Array.from([1.5, -2, 0.5, 3, 1.25, -1]);
    const { out } = await run(forced, device, { a });
    assertClose(
      out as Float32Array,
      scanOf(Array.from(a), (x, y) => Math.fround(x * y)),
      'running products',
      0,
      0,
    );
  });

  test(`${on}: test_scan.py::test_selective_scan_realization`, async () => {
    // loopy's test is empty; what it names: forceScan on the instructions of insnIdFilter only
    let knl = makeKernel(
      '{[i,j,k]: 0<=i<8 and 0<=j<=i and 0<=k<8}',
      ['out[i] = sum(j, a[j]) {id=scan}', 'total[i] = sum(k, a[k]) {id=full}'],
      [globalArg('a', { dtype: 'int32', shape: [8] }), '...'],
    );
    knl = realizeReduction(knl, { forceScan: true, insnIdFilter: ['scan'] });
    assertScan(knl, 'i', 'j', 8);
    assert.ok(
      knl.instructions.find((i) => i.id === 'full')?.expression?.kind === 'reduce',
      'the other reduction is left for later',
    );
    const a = Int32Array.from([3, -1, 4, 1, -5, 9, 2, -6]);
    const { out, total } = await run(knl, device, { a });
    assert.equal(Array.from(out as Int32Array), scanOf(Array.from(a), add));
    assert.equal(Array.from(total as Int32Array), Array(8).fill(7));
  });

  for (const tag of ['for', 'unr', 'l.0']) {
    test(`${on}: scan with an outer sequential iname and random values [${tag}]`, async () => {
      // one scan per k: the accumulator starts again at each k
      let knl = makeKernel(
        '{[k,i,j]: 0<=k<3 and 0<=i<12 and 0<=j<=i}',
        'out[k,i], <>_ = reduce(segmented(sum), j, a[k,j], f[j])',
        [globalArg('a', { dtype: 'float32', shape: [3, 12] }), globalArg('f', { dtype: 'int32', shape: [12] }), '...'],
      );
      knl = scanned(tagInames(knl, { i: tag }));
      assertScan(knl, 'i', 'j', 36);
      const a = randomFloat32(36, 7);
      const f = Int32Array.from([1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0]);
      const { out } = await run(knl, device, { a, f });
      const expected: number[] = [];
      for (let k = 0; k < 3; k++) {
        let acc = 0;
        for (let i = 0; i < 12; i++) expected.push((acc = f[i] ? a[12 * k + i] : Math.fround(acc + a[12 * k + i])));
      }
      assertClose(out as Float32Array, expected, 'segmented running sums', 1e-5, 1e-6);
    });
  }
}

test('the builder verb realizes the scan the function does', async () => {
  const text = 'out[i] = sum(j, a[j])';
  const built = kernel('{[i,j]: 0<=i<8 and 0<=j<=i}', text)
    .dtypes({ a: 'int32' })
    .tag({ i: 'l.0' })
    .realizeReduction({ forceScan: true, forceOuterInameForScan: 'i' });
  const functional = realizeReduction(
    tagInames(addDtypes(makeKernel('{[i,j]: 0<=i<8 and 0<=j<=i}', text), { a: 'int32' }), { i: 'l.0' }),
    {
      forceScan: true,
      forceOuterInameForScan: 'i',
    },
  );
  assert.is(built.toString(), functional.toString());
  const a = Int32Array.from([5, -3, 2, 8, -1, 0, 4, 7]);
  for (const device of testDevices()) {
    const { out } = await built.run(device, { a });
    assert.equal(Array.from(out as Int32Array), scanOf(Array.from(a), add), device.name);
  }
});

test('test_scan.py::test_automatic_scan_detection', () => {
  const knl = makeKernel(['[n] -> {[i]: 0<=i<n}', '{[j]: 0<=j<=2*i}'], 'a[i] = sum(j, j**2)');
  // as in loopy, code generation realizes reductions as reductions: no scan unless asked for
  const code = generateCode(knl, cpuDevice().target).code;
  assert.not.ok(code.includes('scan'), 'no scan by default');
  assert.not.ok(realizeReduction(knl).inames.some((n) => n.includes('scan')));
  // asked for, a triangular reduction becomes a scan and any other stays a reduction
  assertScan(realizeReduction(knl, { automagicScansOk: true }), 'i', 'j', 199, { n: 100 });
  const box = realizeReduction(makeKernel('[n] -> {[i,j]: 0<=i<n and 0<=j<n}', 'a[i] = sum(j, j**2)'), {
    automagicScansOk: true,
  });
  assert.not.ok(box.inames.some((n) => n.includes('scan')));
  assert.ok(box.instructions.some((i) => i.withinInames.includes('j')));
});

test('test_scan.py::test_force_outer_iname_for_scan: a sweep iname the scan does not grow with', () => {
  const knl = makeKernel('[n] -> {[i,j,k]: 0<=k<n and 0<=i<=k and 0<=j<=i}', 'out[i] = product(j, a[j]) {inames=i:k}');
  assert.throws(
    () => realizeReduction(addDtypes(knl, { a: 'float32' }), { forceScan: true, forceOuterInameForScan: 'k' }),
    (e: unknown) => e instanceof ReductionIsNotTriangularError && /does not grow with 'k'/.test(e.message),
  );
  assert.throws(
    () => realizeReduction(knl, { forceOuterInameForScan: 'i' }),
    (e: unknown) => e instanceof LoomError && /no scan was asked for/.test(e.message),
  );
  assert.throws(
    () => realizeReduction(knl, { automagicScansOk: true, forceOuterInameForScan: 'q' }),
    (e: unknown) => e instanceof LoomError && /no iname 'q'/.test(e.message),
  );
});

test('test_scan.py::test_scan_not_triangular', () => {
  const knl = makeKernel('{[i,j]: 0<=i<100 and 1<=j<=2*i}', 'a[i] = sum(j, j**2)');
  assert.throws(
    () => realizeReduction(knl, { forceScan: true }),
    (e: unknown) => e instanceof ReductionIsNotTriangularError && /is not a scan/.test(e.message),
  );
});

test('test_scan.py::test_scan_extra_constraints_on_domain', () => {
  const knl = makeKernel('{[i,j,k]: 0<=i<n and 0<=j<=i and i=k}', 'out[i] = sum(j, a[j])');
  assert.throws(
    () => realizeReduction(knl, { forceScan: true, forceOuterInameForScan: 'i' }),
    (e: unknown) => e instanceof ReductionIsNotTriangularError,
  );
});

test('test_scan.py::test_scan_unsupported_tags', () => {
  // loopy's test is empty; what realize_reduction refuses under force_scan
  const knl = addDtypes(makeKernel('{[i,j]: 0<=i<16 and 0<=j<=i}', 'out[i] = sum(j, a[j])'), { a: 'float32' });
  const refused = (tags: Record<string, string>, why: RegExp) =>
    assert.throws(
      () => realizeReduction(tagInames(knl, tags), { forceScan: true }),
      (e: unknown) => e instanceof LoomError && why.test(e.message),
    );
  refused({ i: 'g.0' }, /sweep iname is tagged g\.0/);
  refused({ i: 'ilp' }, /sweep iname is tagged ilp/);
  refused({ j: 'l.0' }, /scan iname 'j' is tagged l\.0; only the sweep iname may be parallel/);
  // several inames, and a condition that would drop values of later results
  assert.throws(
    () =>
      realizeReduction(makeKernel('{[i,j,k]: 0<=i<4 and 0<=j<=i and 0<=k<4}', 'out[i] = sum((j, k), 1)'), {
        forceScan: true,
      }),
    /reduces over one iname, this one over 2/,
  );
  assert.throws(
    () =>
      realizeReduction(makeKernel('{[i,j]: 0<=i<4 and 0<=j<=i}', 'if i > 1\n  out[i] = sum(j, 1)\nend'), {
        forceScan: true,
      }),
    /runs under conditions/,
  );
});

test.run();
