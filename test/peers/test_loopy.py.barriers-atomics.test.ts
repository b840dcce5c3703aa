/**
 * Ports of loopy's tests of barriers and checks (issue 27, "Barriers, atomics, checks"):
 * temporaries written per work-group moving to global memory, the missing global barrier,
 * the order of global barriers and the device kernels they split a kernel into, no barrier
 * between accesses the integer sets prove disjoint, the access-ordering check, and a
 * reduction under a conditional. Kernels that compute run on every test device against
 * plain JavaScript, as loopy's `auto_test_vs_ref` compares with a sequential reference.
 * Names are the originals' (all from test_loopy.py).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addAndInferDtypes,
  findMostRecentGlobalBarrier,
  fixParameters,
  generateCode,
  getGlobalBarrierOrder,
  getOneLinearizedKernel,
  getSubkernels,
  getSubkernelToInsnIdMap,
  globalArg,
  LoomError,
  makeKernel,
  MissingBarrierError,
  run,
  setOptions,
  setTemporaryAddressSpace,
  splitIname,
  tagInames,
  temporaryVariable,
  VariableAccessNotOrdered,
  type LoopKernel,
  type ScheduleItem,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { preprocess } from '../../packages/core/src/preprocess/pipeline.ts';
import { testDevices } from '../support/devices.ts';

/** loopy's `barrier_between`: a barrier is scheduled after `first` and before `second`. */
function barrierBetween(knl: LoopKernel, first: string, second: string): boolean {
  const flat: ScheduleItem[] = [];
  const visit = (items: readonly ScheduleItem[]) => {
    for (const item of items) {
      flat.push(item);
      if (item.kind === 'loop') visit(item.body);
    }
  };
  for (const sub of getOneLinearizedKernel(knl).subkernels) visit(sub.schedule);
  const at = (id: string) => flat.findIndex((item) => item.kind === 'insn' && item.id === id);
  const [from, to] = [at(first), at(second)];
  assert.ok(from >= 0 && to > from, `${first} is scheduled before ${second}`);
  return flat.slice(from + 1, to).some((item) => item.kind === 'barrier');
}

const GLOBAL_BARRIER_KERNEL = `
  for i
    for itrip
      ... gbarrier {id=top}
      <> z[i] = z[i+1] + z[i]  {id=wr_z,dep=top}
      <> v[i] = 11  {id=wr_v,dep=top}
      ... gbarrier {id=yoink,dep=wr_z:wr_v}
      z[i] = z[i] - z[i+1] + v[i] {id=iupd, dep=yoink}
    end
    ... gbarrier {dep=iupd,id=postloop}
    z[i] = z[i] - z[i+1] + v[i]  {dep=postloop}
  end`;

test('test_global_barrier: temporaries written per work-group go to global memory', () => {
  let knl = makeKernel('{[i,itrip]: 0<=i<n and 0<=itrip<ntrips}', GLOBAL_BARRIER_KERNEL);
  knl = fixParameters(knl, { ntrips: 3 });
  knl = addAndInferDtypes(knl, { z: 'float64' });
  knl = splitIname(knl, 'i', 256, { outerTag: 'g.0', innerTag: 'l.0' });
  const pre = preprocess(knl);
  assert.is(pre.temporaries.get('z')!.addressSpace, 'global');
  assert.is(pre.temporaries.get('v')!.addressSpace, 'global');
  // three global barriers, the first at the top of the host loop: three device kernels
  assert.equal(getSubkernels(getOneLinearizedKernel(knl)), ['loopy_kernel', 'loopy_kernel_0', 'loopy_kernel_1']);
});

test('test_global_barrier: a temporary some writers index by the group iname and others do not is refused', () => {
  const knl = makeKernel('{[i]: 0<=i<128}', '<> z[i] = 1 {id=a}\nz[0] = 2 {id=b, dep=a}\nout[i] = z[i] {dep=b}');
  assert.throws(
    () => generateCode(splitIname(knl, 'i', 64, { outerTag: 'g.0', innerTag: 'l.0' }), openclTarget()),
    (e: unknown) => e instanceof LoomError && /not all instructions agree/.test((e as Error).message),
  );
});

/**
 * loopy's kernel has no outputs and reads `z` before writing it (its test compares nothing);
 * this one keeps the structure, starts `z` from `a`, and writes what each trip reads from
 * another work-group's part of `z` to `out`.
 */
for (const device of testDevices()) {
  test(`${device.name}: test_global_barrier`, async () => {
    const n = 600;
    const ntrips = 3;
    let knl = makeKernel(
      '{[i,itrip]: 0<=i<n and 0<=itrip<ntrips}',
      `
      for i
        for itrip
          ... gbarrier {id=top}
          <> z[i] = a[i] + itrip  {id=wr_z,dep=top}
          <> v[i] = 11  {id=wr_v,dep=top}
          ... gbarrier {id=yoink,dep=wr_z:wr_v}
          out[i] = out[i] + z[n-1-i] + v[i] {id=iupd, dep=yoink}
        end
        ... gbarrier {dep=iupd,id=postloop}
        out[i] = out[i] + z[n-1-i]  {dep=postloop}
      end`,
      [
        globalArg('a', { dtype: 'float32', shape: ['n'] }),
        globalArg('out', { dtype: 'float32', shape: ['n'], isInput: true, isOutput: true }),
        '...',
      ],
    );
    knl = fixParameters(knl, { ntrips });
    knl = splitIname(knl, 'i', 256, { outerTag: 'g.0', innerTag: 'l.0' });
    const a = Float32Array.from({ length: n }, (_, k) => (k % 13) - 6);
    const out0 = Float32Array.from({ length: n }, (_, k) => k % 5);
    const { out } = await run(knl, device, { a, out: out0.slice(), n });
    const expected = out0.map((o, i) => {
      let acc = o;
      for (let t = 0; t < ntrips; t++) acc += a[n - 1 - i] + t + 11;
      return acc + a[n - 1 - i] + ntrips - 1;
    });
    assert.equal(Array.from(out as Float32Array), Array.from(expected));
  });
}

test('test_missing_global_barrier', () => {
  let knl = makeKernel(
    '{[i,itrip]: 0<=i<n and 0<=itrip<ntrips}',
    `
    for i
      for itrip
        ... gbarrier {id=yoink}
        <> z[i] = z[i] - z[i+1]  {id=iupd,dep=yoink}
      end
      # This is where the barrier should be
      z[i] = z[i] - z[i+1] + v[i]  {dep=iupd}
    end`,
  );
  knl = setTemporaryAddressSpace(knl, 'z', 'global');
  knl = splitIname(knl, 'i', 256, { outerTag: 'g.0' });
  knl = addAndInferDtypes(knl, { z: 'float32', v: 'float32' });
  for (const device of testDevices())
    assert.throws(
      () => generateCode(knl, device.target),
      (e: unknown) => e instanceof MissingBarrierError,
      device.name,
    );
});

test('test_global_barrier_order_finding', () => {
  const knl = makeKernel(
    '{[i,itrip]: 0<=i<n and 0<=itrip<ntrips}',
    `
    for i
      for itrip
        ... gbarrier {id=top}
        <> z[i] = z[i+1] + z[i]  {id=wr_z,dep=top}
        <> v[i] = 11  {id=wr_v,dep=top}
        ... gbarrier {dep=wr_z:wr_v,id=yoink}
        z[i] = z[i] - z[i+1] + v[i] {id=iupd, dep=yoink}
      end
      ... nop {id=nop}
      ... gbarrier {dep=iupd,id=postloop}
      z[i] = z[i] - z[i+1] + v[i]  {id=zzzv,dep=postloop}
    end`,
  );
  assert.equal(getGlobalBarrierOrder(knl), ['top', 'yoink', 'postloop']);
  for (const [insn, barrier] of [
    ['nop', undefined],
    ['top', undefined],
    ['wr_z', 'top'],
    ['wr_v', 'top'],
    ['yoink', 'top'],
    ['postloop', 'yoink'],
    ['zzzv', 'postloop'],
  ] as const) {
    assert.is(findMostRecentGlobalBarrier(knl, insn), barrier, insn);
  }
  assert.throws(
    () => findMostRecentGlobalBarrier(knl, 'nope'),
    (e: unknown) => e instanceof LoomError,
  );
});

test('test_global_barrier_order_finding: the instructions of each device kernel', () => {
  let knl = makeKernel('{[i,itrip]: 0<=i<n and 0<=itrip<ntrips}', GLOBAL_BARRIER_KERNEL);
  knl = fixParameters(addAndInferDtypes(knl, { z: 'float32' }), { ntrips: 3 });
  knl = splitIname(knl, 'i', 256, { outerTag: 'g.0', innerTag: 'l.0' });
  const map = getSubkernelToInsnIdMap(getOneLinearizedKernel(knl));
  assert.equal(
    [...map].map(([name, ids]) => [name, [...ids].sort()]),
    [
      ['loopy_kernel', ['wr_v', 'wr_z']],
      ['loopy_kernel_0', ['iupd']],
      ['loopy_kernel_1', ['insn']],
    ],
  );
});

test('test_global_barrier_error_if_unordered', () => {
  const knl = makeKernel('{[i]: 0 <= i < 10}', '... gbarrier\n... gbarrier');
  assert.throws(
    () => getGlobalBarrierOrder(knl),
    (e: unknown) => e instanceof LoomError && /not ordered/.test((e as Error).message),
  );
});

for (const [secondIndex, expectBarrier] of [
  ['2*i', false],
  ['2*i+1', false],
  ['2*i+2', true],
] as const) {
  test(`test_no_barriers_for_nonoverlapping_access[${secondIndex}-${expectBarrier}]`, () => {
    let knl = makeKernel('{[i]: 0<=i<128}', `a[2*i] = 12  {id=first}\na[${secondIndex}] = 13  {id=second,dep=first}`, [
      temporaryVariable('a', { shape: [256], addressSpace: 'local' }),
    ]);
    knl = tagInames(knl, 'i:l.0');
    assert.is(barrierBetween(knl, 'first', 'second'), expectBarrier);
  });
}

for (const device of testDevices()) {
  // the kernels above, with what they leave in a's even elements read back
  test(`${device.name}: test_no_barriers_for_nonoverlapping_access, the values`, async () => {
    for (const secondIndex of ['2*i', '2*i+1', '2*i+2']) {
      let knl = makeKernel(
        '{[i]: 0<=i<128}',
        `a[2*i] = 12  {id=first}\na[${secondIndex}] = 13  {id=second,dep=first}\nout[i] = a[2*i] {dep=second}`,
        [
          temporaryVariable('a', { dtype: 'int32', shape: [258], addressSpace: 'local' }),
          globalArg('out', { dtype: 'int32', shape: [128] }),
        ],
      );
      knl = tagInames(knl, 'i:l.0');
      const { out } = await run(knl, device, {});
      const expected = Array.from({ length: 128 }, (_, i) =>
        secondIndex === '2*i' ? 13 : secondIndex === '2*i+1' || i === 0 ? 12 : 13,
      );
      assert.equal(Array.from(out as Int32Array), expected, secondIndex);
    }
  });
}

test('test_check_for_variable_access_ordering', () => {
  const knl = setOptions(makeKernel('{[i]: 0<=i<n}', 'a[i] = 12\na[i+1] = 13'), { enforceVariableAccessOrdered: true });
  for (const device of testDevices())
    assert.throws(
      () => generateCode(knl, device.target),
      (e: unknown) => e instanceof VariableAccessNotOrdered,
      device.name,
    );
  // disjoint elements, or a dependency, need no order
  generateCode(
    setOptions(makeKernel('{[i]: 0<=i<n}', 'a[2*i] = 12\na[2*i+1] = 13'), { enforceVariableAccessOrdered: true }),
    openclTarget(),
  );
  generateCode(
    setOptions(makeKernel('{[i]: 0<=i<n}', 'a[i] = 12 {id=w}\na[i+1] = 13 {dep=w}'), {
      enforceVariableAccessOrdered: true,
    }),
    openclTarget(),
  );
});

for (const device of testDevices()) {
  test(`${device.name}: test_predicated_redn`, async () => {
    const knl = makeKernel(
      ['{[i]: 0<= i < 5}', '{[j]: 0<= j < 10}', '{[k]: 0<=k<10}'],
      '<> tmp[k] = k ** 2\ny[j] = 0 if j < 5 else sum(i, tmp[i+j-5])',
      undefined,
      {
        seqDependencies: true,
      },
    );
    const { y } = await run(knl, device, {});
    const tmp = Array.from({ length: 10 }, (_, k) => k ** 2);
    const expected = Array.from({ length: 10 }, (_, j) =>
      j < 5 ? 0 : [0, 1, 2, 3, 4].reduce((s, i) => s + tmp[i + j - 5], 0),
    );
    assert.equal(Array.from(y as ArrayLike<number>), expected);
  });
}

test.run();
