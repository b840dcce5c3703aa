/**
 * Ports of loopy's tests of dependencies and linearization (issue 28, test_loopy.py batch B):
 * wildcard dependencies, dependency cycles (printed, then refused with DependencyCycleFound),
 * the access-ordering check through aliased storage, the device kernels a global barrier
 * makes, local barriers (needed with a hardware axis that starts at 1, not needed where each
 * work-item reads what it wrote), a kernel of 500 loops, and loop priorities that nest two
 * loops each inside a third. Kernels that compute run on every test device against plain
 * JavaScript. Names are the originals' (all from test_loopy.py).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  collectWarnings,
  DependencyCycleFound,
  generateCode,
  getOneLinearizedKernel,
  getSubkernels,
  getSubkernelToInsnIdMap,
  globalArg,
  KernelCheckError,
  makeKernel,
  preprocessKernel,
  prioritizeLoops,
  removeInstructions,
  run,
  setOptions,
  setTemporaryAddressSpace,
  splitArrayAxis,
  splitIname,
  stringifyKernel,
  tagArrayAxes,
  tagInames,
  temporaryVariable,
  VariableAccessNotOrdered,
  type LoopKernel,
  type ScheduleItem,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { writerMap } from '../../packages/core/src/kernel/accesses.ts';
import { testDevices } from '../support/devices.ts';

/** The schedule items of every device kernel, loops opened up, in order. */
function flatSchedule(knl: LoopKernel): ScheduleItem[] {
  const flat: ScheduleItem[] = [];
  const visit = (items: readonly ScheduleItem[]) => {
    for (const item of items) {
      flat.push(item);
      if (item.kind === 'loop') visit(item.body);
    }
  };
  for (const sub of getOneLinearizedKernel(knl).subkernels) visit(sub.schedule);
  return flat;
}

/** loopy's `barrier_between`: a barrier is scheduled after `first` and before `second`. */
function barrierBetween(knl: LoopKernel, first: string, second: string): boolean {
  const flat = flatSchedule(knl);
  const at = (id: string) => flat.findIndex((item) => item.kind === 'insn' && item.id === id);
  const [from, to] = [at(first), at(second)];
  assert.ok(from >= 0 && to > from, `${first} is scheduled before ${second}`);
  return flat.slice(from + 1, to).some((item) => item.kind === 'barrier');
}

/** The loops of a schedule as text: `i(j(x) k(y))`. */
function nesting(items: readonly ScheduleItem[]): string {
  return items
    .map((item) =>
      item.kind === 'loop' ? `${item.iname}(${nesting(item.body)})` : item.kind === 'insn' ? item.id : item.kind,
    )
    .join(' ');
}

test('test_wildcard_dep_matching', () => {
  const knl = makeKernel(
    '{[i]: 0 <= i < 10}',
    `
    <>a = 0 {id=insn1}
    <>b = 0 {id=insn2,dep=insn?}
    <>c = 0 {id=insn3,dep=insn*}
    <>d = 0 {id=insn4,dep=insn[12]}
    <>e = 0 {id=insn5,dep=insn[!1]}
    `,
  );
  const all = ['insn1', 'insn2', 'insn3', 'insn4', 'insn5'];
  const deps = (id: string) => [...knl.instruction(id).dependsOn].sort();
  assert.equal(deps('insn1'), []);
  assert.equal(
    deps('insn2'),
    all.filter((x) => x !== 'insn2'),
  );
  assert.equal(
    deps('insn3'),
    all.filter((x) => x !== 'insn3'),
  );
  assert.equal(deps('insn4'), ['insn1', 'insn2']);
  assert.equal(
    deps('insn5'),
    all.filter((x) => x !== 'insn1' && x !== 'insn5'),
  );
});

test('test_check_for_variable_access_ordering_with_aliasing', () => {
  // a and b share the storage 'tmp': b[i+1] and a[i] may be one element, with no order between the writes
  let knl = makeKernel(
    '{[i]: 0<=i<n}',
    ['a[i] = 12', 'b[i+1] = 13'],
    [
      temporaryVariable('a', { shape: 'n+1', baseStorage: 'tmp' }),
      temporaryVariable('b', { shape: 'n+1', baseStorage: 'tmp' }),
    ],
  );
  knl = setOptions(knl, { enforceVariableAccessOrdered: true });
  assert.throws(
    () => generateCode(knl, openclTarget()),
    (e: unknown) => e instanceof VariableAccessNotOrdered,
  );
});

const DEP_CYCLE_KERNEL = `
  for j
    for i
      <> nu = i - 4
      if nu > 0
        <> P_val = a[i, j] {id=pset0}
      else
        P_val = 0.1 * a[i, j] {id=pset1}
      end
      <> B_sum = 0
      for k
        B_sum = B_sum + k * P_val {id=bset, dep=pset*}
      end
      # here, we are testing that Kc is properly promoted to a vector dtype
      <> Kc = P_val * B_sum {id=kset, dep=bset}
      a[i, j] = Kc {dep=kset}
    end
  end`;

test('test_dep_cycle_printing_and_error', () => {
  // two cycles: pset0 and pset1 read a, whose writer waits for kset, which waits for them
  let knl = makeKernel('{[i,j,k]: 0 <= i,j,k < 12}', DEP_CYCLE_KERNEL, [
    globalArg('a', { shape: [12, 12], dtype: 'int32' }),
  ]);
  knl = splitIname(knl, 'j', 4, { innerTag: 'vec' });
  knl = splitArrayAxis(knl, 'a', 1, 4);
  knl = tagArrayAxes(knl, 'a', 'N1,N0,vec');
  knl = preprocessKernel(knl);
  // printing the kernel with its cycles works (loopy's issue 140)
  const text = stringifyKernel(knl);
  assert.match(text, /B_sum\[j_inner\] = B_sum\[j_inner\] \+ k\*P_val\[j_inner\] \{id=bset, dep=pset0:pset1\}/);
  assert.match(text, /\nDEPENDENCIES:.*\npset0 : insn, insn_1\npset1 : insn, insn_1\nbset : pset0, pset1\n/s);
  assert.throws(
    () => generateCode(knl, openclTarget()),
    (e: unknown) => e instanceof DependencyCycleFound && /dependency cycle: 'pset0' depends on /.test(e.message),
  );
});

test('test_backwards_dep_printing_and_error', () => {
  const knl = makeKernel(
    '{[i]: 0<=i<n}',
    `
    c[i] = a[i] + b[i]                       {id=insn1}
    c[i] = 2*c[i]                            {id=insn2, dep=insn1}
    c[i] = 7*c[i] + a[i]*a[i] + b[i]*b[i]    {id=insn3, dep=insn2}
    b[i] = b[i] + c[i]                       {id=insn4, dep=insn3}
    d[i] = 7*a[i ]                           {id=insn5, dep=insn4}
    a[i] = a[i] + d[i]                       {id=insn6, dep=insn5}
    `,
    [globalArg('a', { dtype: 'float64' }), globalArg('b', { dtype: 'float64' }), '...'],
  );
  // insn1 reads a and b, which later instructions write: it depends on them, backwards
  const text = stringifyKernel(knl);
  assert.match(text, /c\[i\] = a\[i\] \+ b\[i\] \{id=insn1, dep=insn4:insn6\}/);
  assert.match(text, /\nDEPENDENCIES:.*\ninsn1 : insn4, insn6\ninsn2 : insn1\n/s);
  assert.throws(
    () => generateCode(knl, openclTarget()),
    (e: unknown) => e instanceof DependencyCycleFound && /'insn1' depends on/.test(e.message),
  );
});

test('test_cached_written_variables_doesnt_carry_over_invalidly', () => {
  const knl = makeKernel('{:}', ['a[i] = 2*i {id=write_a}', 'b[i] = 2*i {id=write_b}']);
  assert.equal([...writerMap(knl).keys()].sort(), ['a', 'b']);
  const knl2 = removeInstructions(knl, 'id:write_b');
  assert.equal([...writerMap(knl2).keys()], ['a']);
  assert.equal([...writerMap(knl).keys()].sort(), ['a', 'b']);
});

/** loopy's kernel, tmp in global memory: a value that crosses a global barrier is kept there. */
const acrossGlobalBarrier = () =>
  makeKernel(
    '{[i,j]: 0<=i,j<10}',
    `
    tmp[i] = i
    ... gbarrier
    out[j] = tmp[9-j]
    `,
    [temporaryVariable('tmp', { addressSpace: 'global' }), '...'],
    { seqDependencies: true },
  );

test('test_get_return_from_kernel_mapping', () => {
  const knl = acrossGlobalBarrier();
  // loopy maps each schedule item to the end of its device kernel; here each device kernel holds its items
  const lin = getOneLinearizedKernel(knl);
  assert.equal(getSubkernels(lin), ['loopy_kernel', 'loopy_kernel_0']);
  assert.equal(
    lin.subkernels.map((sub) => nesting(sub.schedule)),
    ['i(insn)', 'j(insn_1)'],
  );
  assert.equal(
    [...getSubkernelToInsnIdMap(lin)].map(([name, ids]) => [name, [...ids]]),
    [
      ['loopy_kernel', ['insn']],
      ['loopy_kernel_0', ['insn_1']],
    ],
  );
});

for (const device of testDevices()) {
  test(`${device.name}: test_get_return_from_kernel_mapping (the two device kernels run)`, async () => {
    const { out } = await run(acrossGlobalBarrier(), device, {});
    assert.equal(
      Array.from(out as Int32Array),
      Array.from({ length: 10 }, (_, j) => 9 - j),
    );
  });
}

test('test_barrier_non_zero_hw_lbound', () => {
  // i starts at 1 on local axis 0: a[j] for work-item j was written by work-item j - 1
  const lbound = (read: string) => {
    const knl = makeKernel(
      ['{[i]: 1<=i<17}', '{[j]: 0<=j<16}'],
      ['<> a[i] = i      {id=w_a}', `<> b[j] = ${read} {id=w_b}`],
    );
    return preprocessKernel(tagInames(knl, { i: 'l.0', j: 'l.0' }));
  };
  // loopy's kernel reads a[0], which nothing writes: Loom refuses that read of local memory
  assert.throws(
    () => getOneLinearizedKernel(lbound('2*a[j]')),
    (e: unknown) => e instanceof KernelCheckError && /reads elements 0 to 15 .* write only 1 to 16/.test(e.message),
  );
  // reading only what is written, the barrier is there
  assert.ok(barrierBetween(lbound('2*a[j] if j >= 1 else 0'), 'w_a', 'w_b'));
});

function noUnnecessaryLbarrierKernel(): LoopKernel {
  let knl = makeKernel(
    '{[i_outer, i_inner]: 0 <= i_outer < n and 0 <= i_inner < 16}',
    `
    <> s_a[i_inner] = ai[i_outer * 16 + i_inner] {id=write_s_a}
    ao[i_outer * 16 + i_inner] = 2.0 * s_a[i_inner] {id=write_ao, dep=write_s_a}
    `,
    { assumptions: 'n>=0' },
  );
  knl = addDtypes(knl, { ai: 'float32' });
  knl = tagInames(knl, { i_inner: 'l.0', i_outer: 'g.0' });
  knl = setTemporaryAddressSpace(knl, 's_a', 'local');
  return prioritizeLoops(knl, 'i_outer,i_inner');
}

test('test_no_unnecessary_lbarrier', () => {
  // each work-item reads the element of s_a it wrote: no barrier between
  assert.not.ok(barrierBetween(preprocessKernel(noUnnecessaryLbarrierKernel()), 'write_s_a', 'write_ao'));
});

for (const device of testDevices()) {
  test(`${device.name}: test_no_unnecessary_lbarrier (runs without the barrier)`, async () => {
    const ai = Float32Array.from({ length: 48 }, (_, k) => k / 4 - 3);
    const { ao } = await run(noUnnecessaryLbarrierKernel(), device, { ai, n: 3 });
    assert.equal(
      Array.from(ao as Float32Array),
      Array.from(ai, (v) => 2 * v),
    );
  });
}

test('test_long_kernel', () => {
  const n = 500;
  const knl = preprocessKernel(
    makeKernel(
      Array.from({ length: n }, (_, i) => `{ [j${i}]: 0<=j${i}<10 }`),
      Array.from({ length: n }, (_, i) => `a${i}[j${i}] = j${i}`),
    ),
  );
  const [sub] = getOneLinearizedKernel(knl).subkernels;
  // one loop per instruction, in the order written
  assert.is(sub.schedule.length, n);
  sub.schedule.forEach((item, i) => {
    assert.ok(item.kind === 'loop' && item.iname === `j${i}` && item.body.length === 1, `loop ${i}`);
  });
});

test('test_loop_imperfect_nest_priorities_in_v2_scheduler', () => {
  // loopy's loop_priority {(i, j), (i, k)}: i outside both j and k, which are not nested
  let knl = makeKernel('{ [i,j,k]: 0 <= i,j,k < 5}', ['x[i, j] = i + j', 'y[i, k] = i + k']);
  knl = prioritizeLoops(knl, 'i,j');
  knl = prioritizeLoops(knl, 'i,k');
  const { warnings } = collectWarnings(() => generateCode(knl, openclTarget()));
  assert.equal(warnings, []);
  assert.is(nesting(getOneLinearizedKernel(knl).subkernels[0].schedule), 'i(j(insn) k(insn_0))');
});

test.run();
