/**
 * Ports of loopy's test/test_loop_fusion.py: Kennedy's unweighted loop fusion
 * (`getKennedyUnweightedFusionCandidates`) and `renameInamesInBatch`. Each test asserts the
 * batches loopy proposes, the loops the fused kernel linearizes to, and runs the fused kernel
 * on every test device against the same computation in plain JavaScript. The tests after
 * loopy's check that a dependency forbidding fusion is honoured.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  expr,
  getKennedyUnweightedFusionCandidates,
  linearize,
  LoomError,
  makeKernel,
  renameInamesInBatch,
  run,
  type Device,
  type DType,
  type LoopKernel,
  type ScheduleItem,
} from '@loom/core';
import { assertClose, supportsDType, testDevices } from '../support/devices.ts';

const fuse = (knl: LoopKernel, candidates: readonly string[]) =>
  renameInamesInBatch(knl, getKennedyUnweightedFusionCandidates(knl, candidates));

/** The batches as sorted entries, for comparing with loopy's. */
const batchesOf = (knl: LoopKernel, candidates: readonly string[]) =>
  [...getKennedyUnweightedFusionCandidates(knl, candidates)].sort(([a], [b]) => (a < b ? -1 : 1));

/** The sequential loops of the linearized kernel, as `i(j k) l`: each loop with the loops inside it. */
function loopNest(knl: LoopKernel): string {
  const show = (items: readonly ScheduleItem[]): string =>
    items
      .flatMap((it) =>
        it.kind === 'loop' ? [it.body.some((b) => b.kind === 'loop') ? `${it.iname}(${show(it.body)})` : it.iname] : [],
      )
      .join(' ');
  return linearize(knl)
    .subkernels.map((s) => show(s.schedule))
    .join(' | ');
}

const shared = (knl: LoopKernel, a: string, b: string) =>
  knl.instruction(a).withinInames.filter((n) => knl.instruction(b).withinInames.includes(n));
const range = (n: number, f: (k: number) => number, from = 0) =>
  Array.from({ length: n - from }, (_, k) => f(k + from));

async function outputs(device: Device, knl: LoopKernel, data: Parameters<typeof run>[2] = {}) {
  return (await run(knl, device, data)) as Record<string, ArrayLike<number> | number>;
}

test('test_same_loop_node', () => {
  const knl = makeKernel('{[i, j]: 0<=i,j<10}', 'a[i, j] = i+j', { name: 'foo' });
  assert.throws(
    () => getKennedyUnweightedFusionCandidates(knl, ['i', 'j']),
    (e: unknown) => e instanceof LoomError && /can be nested within one another/.test((e as Error).message),
  );
});

const vanilla = () =>
  addDtypes(
    makeKernel(
      '{[i0, i1, j0, j1]: 0 <= i0, i1, j0, j1 < 10}',
      `a[i0]     = 1
       b[i1, j0] = 2  {id=write_b}
       c[j1]     = 3  {id=write_c}`,
    ),
    { a: 'int32', b: 'int32', c: 'int32' },
  );

for (const device of testDevices()) {
  test(`${device.name}: test_loop_fusion_vanilla`, async () => {
    const ref = vanilla();
    assert.equal(batchesOf(ref, ['j0', 'j1']), [['ifused', ['j0', 'j1']]]);
    const knl = fuse(ref, ['j0', 'j1']);
    assert.is(ref.inames.length, 4);
    assert.is(knl.inames.length, 3);
    assert.is(shared(knl, 'write_b', 'write_c').length, 1);
    assert.match(loopNest(knl), /^i0 (ifused\(i1\)|i1\(ifused\))$/);
    const out = await outputs(device, knl);
    assertClose(
      out.a as ArrayLike<number>,
      range(10, () => 1),
      'a',
    );
    assertClose(
      out.b as ArrayLike<number>,
      range(100, () => 2),
      'b',
    );
    assertClose(
      out.c as ArrayLike<number>,
      range(10, () => 3),
      'c',
    );
  });

  test(`${device.name}: test_loop_fusion_outer_iname_preventing_fusion`, async () => {
    const ref = addDtypes(
      makeKernel(
        '{[i0, j0, j1]: 0 <= i0, j0, j1 < 10}',
        `a[i0]     = 1
         b[i0, j0] = 2 {id=write_b}
         c[j1]     = 3 {id=write_c}`,
      ),
      { a: 'int32', b: 'int32', c: 'int32' },
    );
    // j0 runs inside i0, j1 at the top: not siblings, so each is a batch of its own
    assert.equal(batchesOf(ref, ['j0', 'j1']), [
      ['ifused', ['j0']],
      ['ifused_0', ['j1']],
    ]);
    const knl = fuse(ref, ['j0', 'j1']);
    assert.is(knl.inames.length, 3);
    assert.is(shared(knl, 'write_b', 'write_c').length, 0);
    assert.is(loopNest(knl), 'i0(ifused) ifused_0');
    const out = await outputs(device, knl);
    assertClose(
      out.a as ArrayLike<number>,
      range(10, () => 1),
      'a',
    );
    assertClose(
      out.b as ArrayLike<number>,
      range(100, () => 2),
      'b',
    );
    assertClose(
      out.c as ArrayLike<number>,
      range(10, () => 3),
      'c',
    );
  });

  test(`${device.name}: test_loop_fusion_with_loop_independent_deps`, async () => {
    const ref = addDtypes(
      makeKernel('{[j0, j1]: 0 <= j0, j1 < 10}', 'a[j0] = 1\nb[j1] = 2 * a[j1]', { seqDependencies: true }),
      { a: 'int32', b: 'int32' },
    );
    assert.equal(batchesOf(ref, ['j0', 'j1']), [['ifused', ['j0', 'j1']]]);
    const knl = fuse(ref, ['j0', 'j1']);
    assert.is(ref.inames.length, 2);
    assert.is(knl.inames.length, 1);
    assert.is(loopNest(knl), 'ifused');
    // a is read after the loop writes it, so the caller passes it (loopy's test passes random data)
    const out = await outputs(device, knl, { a: new Int32Array(10) });
    assertClose(
      out.a as ArrayLike<number>,
      range(10, () => 1),
      'a',
    );
    assertClose(
      out.b as ArrayLike<number>,
      range(10, () => 2),
      'b',
    );
  });

  test(`${device.name}: test_loop_fusion_constrained_by_outer_loop_deps`, async () => {
    const ref = addDtypes(
      makeKernel(
        '{[j0, j1]: 0 <= j0, j1 < 10}',
        `a[j0] = 1         {id=write_a}
         b     = 2         {id=write_b}
         c[j1] = 2 * a[j1] {id=write_c}`,
        { seqDependencies: true },
      ),
      { a: 'int32', b: 'int32', c: 'int32' },
    );
    // write_b sits between the loops: one fused loop could not run both before and after it
    assert.equal(batchesOf(ref, ['j0', 'j1']), [
      ['ifused', ['j0']],
      ['ifused_0', ['j1']],
    ]);
    const knl = fuse(ref, ['j0', 'j1']);
    assert.is(ref.inames.length, 2);
    assert.is(knl.inames.length, 2);
    assert.is(shared(knl, 'write_a', 'write_c').length, 0);
    assert.is(loopNest(knl), 'ifused ifused_0');
    const out = await outputs(device, knl, { a: new Int32Array(10) });
    assertClose(
      out.a as ArrayLike<number>,
      range(10, () => 1),
      'a',
    );
    assertClose([out.b as number].flat(), [2], 'b');
    assertClose(
      out.c as ArrayLike<number>,
      range(10, () => 2),
      'c',
    );
  });

  test(`${device.name}: test_loop_fusion_with_loop_carried_deps1`, async () => {
    const ref = addDtypes(
      makeKernel(
        '{[i0, i1]: 1<=i0, i1<10}',
        `x[i0] = i0         {id=first_write}
         x[i1-1] = i1 ** 2  {id=second_write}`,
        { seqDependencies: true },
      ),
      { x: 'int32' },
    );
    // iteration i writes x[i], iteration i + 1 overwrites it: fused, that order holds
    assert.equal(batchesOf(ref, ['i0', 'i1']), [['ifused', ['i0', 'i1']]]);
    const knl = fuse(ref, ['i0', 'i1']);
    assert.is(ref.inames.length, 2);
    assert.is(knl.inames.length, 1);
    assert.is(shared(knl, 'first_write', 'second_write').length, 1);
    assert.is(loopNest(knl), 'ifused');
    const out = await outputs(device, knl);
    assertClose(out.x as ArrayLike<number>, [...range(9, (k) => (k + 1) ** 2), 9], 'x');
  });

  test(`${device.name}: test_loop_fusion_with_loop_carried_deps2`, async () => {
    const ref = addDtypes(
      makeKernel(
        '{[i0, i1]: 1<=i0, i1<10}',
        `x[i0-1] = i0     {id=first_write}
         x[i1] = i1 ** 2  {id=second_write}`,
        { seqDependencies: true },
      ),
      { x: 'int32' },
    );
    // fused, iteration i would write x[i] before iteration i + 1 writes x[i]: the second loop must win
    assert.equal(batchesOf(ref, ['i0', 'i1']), [
      ['ifused', ['i0']],
      ['ifused_0', ['i1']],
    ]);
    const knl = fuse(ref, ['i0', 'i1']);
    assert.is(knl.inames.length, 2);
    assert.is(shared(knl, 'first_write', 'second_write').length, 0);
    assert.is(loopNest(knl), 'ifused ifused_0');
    const out = await outputs(device, knl);
    assertClose(out.x as ArrayLike<number>, [1, ...range(10, (k) => k ** 2, 1)], 'x');
  });

  test(`${device.name}: test_loop_fusion_with_indirection`, async () => {
    // a fixed permutation of 0..9 (loopy draws one with numpy's seed 42)
    const map = Int32Array.from([8, 1, 5, 0, 7, 2, 9, 4, 3, 6]);
    const ref = addDtypes(
      makeKernel(
        '{[i0, i1]: 0<=i0, i1<10}',
        `x[i0] = i0            {id=first_write}
         x[map[i1]] = i1 ** 2  {id=second_write}`,
        { seqDependencies: true },
      ),
      { x: 'int32', map: 'int32' },
    );
    // nothing proves map[i1] never names an element the first loop writes later
    assert.equal(batchesOf(ref, ['i0', 'i1']), [
      ['ifused', ['i0']],
      ['ifused_0', ['i1']],
    ]);
    const knl = fuse(ref, ['i0', 'i1']);
    assert.is(knl.inames.length, 2);
    assert.is(shared(knl, 'first_write', 'second_write').length, 0);
    const expected = range(10, (k) => k);
    map.forEach((m, i) => {
      expected[m] = i ** 2;
    });
    assertClose((await outputs(device, knl, { map, x: new Int32Array(10) })).x as ArrayLike<number>, expected, 'x');
    assertClose(
      (await outputs(device, ref, { map, x: new Int32Array(10) })).x as ArrayLike<number>,
      expected,
      'x (unfused)',
    );
  });

  test(`${device.name}: test_loop_fusion_with_induced_dependencies_from_sibling_nests`, async () => {
    const ref = addDtypes(
      makeKernel(
        '{[i0, j, i1, i2]: 0<=i0, j, i1, i2<10}',
        `<> tmp0[i0] = i0
         <> tmp1[j] = tmp0[j]
         <> tmp2[j] = j
         out1[i1] = tmp2[i1]
         out2[i2] = 2 * tmp1[i2]`,
      ),
      { out1: 'int32', out2: 'int32' },
    );
    // the j loop reads what i0 writes and writes what i1 reads: i0 and i1 cannot be one loop
    assert.equal(batchesOf(ref, ['i0', 'i1']), [
      ['ifused', ['i0']],
      ['ifused_0', ['i1']],
    ]);
    const knl = fuse(ref, ['i0', 'i1']);
    assert.is(loopNest(knl), 'ifused j ifused_0 i2');
    const out = await outputs(device, knl);
    assertClose(
      out.out1 as ArrayLike<number>,
      range(10, (k) => k),
      'out1',
    );
    assertClose(
      out.out2 as ArrayLike<number>,
      range(10, (k) => 2 * k),
      'out2',
    );
  });

  /** loopy's reduction kernels over A (10×10×10), in float64 where the device has it. */
  const reductionKernel = (dtype: DType, inames: string, code: string) =>
    addDtypes(makeKernel(`{[${inames}]: 0<=${inames}<10}`, code), { A: dtype });
  const dtypeOf = (d: Device): DType => (supportsDType(d, 'float64') ? 'float64' : 'float32');
  const A = Float64Array.from({ length: 1000 }, (_, k) => Math.sin(k) * 0.5);
  const typed = (dtype: DType, xs: ArrayLike<number>) =>
    dtype === 'float64' ? Float64Array.from(xs) : Float32Array.from(xs);
  /** sum over (j, k) of w * A[i, f(j, k)] for each i */
  const doubleSum = (w: number, at: (i: number, j: number, k: number) => number) =>
    range(10, (i) => {
      let s = 0;
      for (let j = 0; j < 10; j++) for (let k = 0; k < 10; k++) s += w * A[at(i, j, k)];
      return s;
    });

  test(`${device.name}: test_loop_fusion_on_reduction_inames`, async () => {
    const dtype = dtypeOf(device);
    const ref = reductionKernel(
      dtype,
      'i, j0, j1, j2',
      `y0[i] = sum(j0, sum([j1], 2*A[i, j0, j1]))
       y1[i] = sum(j0, sum([j2], 3*A[i, j0, j2]))`,
    );
    assert.equal(batchesOf(ref, ['j1', 'j2']), [['ifused', ['j1', 'j2']]]);
    const knl = fuse(ref, ['j1', 'j2']);
    assert.equal(reductionsOf(knl, 'insn'), reductionsOf(knl, 'insn_0'));
    assert.match(loopNest(knl), /^(i\(j0\(ifused\)\)|j0\(i\(ifused\)\))$/);
    const out = await outputs(device, knl, { A: typed(dtype, A) });
    const tol = dtype === 'float64' ? 1e-12 : 1e-4;
    assertClose(
      out.y0 as ArrayLike<number>,
      doubleSum(2, (i, j, k) => 100 * i + 10 * j + k),
      'y0',
      tol,
      tol,
    );
    assertClose(
      out.y1 as ArrayLike<number>,
      doubleSum(3, (i, j, k) => 100 * i + 10 * j + k),
      'y1',
      tol,
      tol,
    );
  });

  test(`${device.name}: test_loop_fusion_on_reduction_inames_with_depth_mismatch`, async () => {
    const dtype = dtypeOf(device);
    const ref = reductionKernel(
      dtype,
      'i, j0, j1, j2, j3',
      `y0[i] = sum(j0, sum([j1], 2*A[i, j0, j1]))
       y1[i] = sum(j2, sum([j3], 3*A[i, j3, j2]))`,
    );
    // j1 runs inside j0, j3 inside j2: not siblings
    assert.equal(batchesOf(ref, ['j1', 'j3']), [
      ['ifused', ['j1']],
      ['ifused_0', ['j3']],
    ]);
    const knl = fuse(ref, ['j1', 'j3']);
    assert.not.equal(reductionsOf(knl, 'insn'), reductionsOf(knl, 'insn_0'));
    const out = await outputs(device, knl, { A: typed(dtype, A) });
    const tol = dtype === 'float64' ? 1e-12 : 1e-4;
    assertClose(
      out.y0 as ArrayLike<number>,
      doubleSum(2, (i, j, k) => 100 * i + 10 * j + k),
      'y0',
      tol,
      tol,
    );
    assertClose(
      out.y1 as ArrayLike<number>,
      doubleSum(3, (i, j, k) => 100 * i + 10 * k + j),
      'y1',
      tol,
      tol,
    );
  });

  test(`${device.name}: test_loop_fusion_on_outer_reduction_inames`, async () => {
    const dtype = dtypeOf(device);
    const ref = reductionKernel(
      dtype,
      'i, j0, j1, j2, j3',
      `y0[i] = sum(j0, sum([j1], 2*A[i, j0, j1]))
       y1[i] = sum(j2, sum([j3], 3*A[i, j3, j2]))`,
    );
    assert.equal(batchesOf(ref, ['j0', 'j2']), [['ifused', ['j0', 'j2']]]);
    const knl = fuse(ref, ['j0', 'j2']);
    const both = reductionsOf(knl, 'insn').filter((n) => reductionsOf(knl, 'insn_0').includes(n));
    assert.is(both.length, 1);
    assert.match(loopNest(knl), /^i\(ifused\((j1 j3|j3 j1)\)\)$/);
    const out = await outputs(device, knl, { A: typed(dtype, A) });
    const tol = dtype === 'float64' ? 1e-12 : 1e-4;
    assertClose(
      out.y0 as ArrayLike<number>,
      doubleSum(2, (i, j, k) => 100 * i + 10 * j + k),
      'y0',
      tol,
      tol,
    );
    assertClose(
      out.y1 as ArrayLike<number>,
      doubleSum(3, (i, j, k) => 100 * i + 10 * k + j),
      'y1',
      tol,
      tol,
    );
  });

  test(`${device.name}: test_loop_fusion_reduction_inames_simple`, async () => {
    const dtype = dtypeOf(device);
    const ref = reductionKernel(dtype, 'i, j0, j1', 'y0[i] = sum(j0, 2*A[i, j0])\ny1[i] = sum(j1, 3*A[i, j1])');
    assert.equal(batchesOf(ref, ['j0', 'j1']), [['ifused', ['j0', 'j1']]]);
    const knl = fuse(ref, ['j0', 'j1']);
    assert.equal(reductionsOf(knl, 'insn'), reductionsOf(knl, 'insn_0'));
    assert.is(loopNest(knl), 'i(ifused)');
    const out = await outputs(device, knl, { A: typed(dtype, A.slice(0, 100)) });
    const sum = (w: number) => range(10, (i) => range(10, (j) => w * A[10 * i + j]).reduce((s, x) => s + x, 0));
    const tol = dtype === 'float64' ? 1e-12 : 1e-5;
    assertClose(out.y0 as ArrayLike<number>, sum(2), 'y0', tol, tol);
    assertClose(out.y1 as ArrayLike<number>, sum(3), 'y1', tol, tol);
  });

  test(`${device.name}: test_redn_loop_fusion_with_non_candidates_loops_in_nest`, async () => {
    const ref = addDtypes(
      makeKernel(
        '{[i, j1, j2, d]: 0<=i, j1, j2, d<10}',
        `for i
           for d
             out1[i, d] = sum(j1, 2 * j1*i)
           end
           out2[i] = sum(j2, 2 * j2)
         end`,
        { seqDependencies: true },
      ),
      { out1: 'int32', out2: 'int32' },
    );
    // j1 runs inside d, j2 directly inside i
    assert.equal(batchesOf(ref, ['j1', 'j2']), [
      ['ifused', ['j1']],
      ['ifused_0', ['j2']],
    ]);
    const knl = fuse(ref, ['j1', 'j2']);
    assert.equal(
      reductionsOf(knl, 'insn').filter((n) => reductionsOf(knl, 'insn_0').includes(n)),
      [],
    );
    const out = await outputs(device, knl);
    assertClose(
      out.out1 as ArrayLike<number>,
      range(100, (k) => 90 * Math.floor(k / 10)),
      'out1',
    );
    assertClose(
      out.out2 as ArrayLike<number>,
      range(10, () => 90),
      'out2',
    );
  });

  test(`${device.name}: test_reduction_loop_fusion_with_multiple_redn_in_same_insn`, async () => {
    const ref = addDtypes(
      makeKernel('{[j1, j2]: 0<=j1, j2<10}', 'out = sum(j1, 2*j1) + sum(j2, 2*j2)', { seqDependencies: true }),
      { out: 'int32' },
    );
    assert.equal(batchesOf(ref, ['j1', 'j2']), [['ifused', ['j1', 'j2']]]);
    const knl = fuse(ref, ['j1', 'j2']);
    assert.equal(reductionsOf(knl, 'insn'), ['ifused']);
    assert.is(loopNest(knl), 'ifused');
    assertClose([(await outputs(device, knl)).out as number].flat(), [180], 'out');
  });
}

const reductionsOf = (knl: LoopKernel, id: string) =>
  [...expr.reductionInamesIn(knl.instruction(id).expression!)].sort();

test.run();
