/**
 * The fluent builder is the functional API with types: a chain of verbs gives exactly the
 * kernel the core functions give (same fields, same printout, same generated code), and
 * builders never change.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addInamesToInsn,
  diffKernel,
  chunkIname,
  expandSubst,
  extractSubst,
  makeReductionInamesUnique,
  renameInames,
  renameInamesInBatch,
  getKennedyUnweightedFusionCandidates,
  setInstructionPriority,
  tagInstructions,
  addDtypes,
  addNosync,
  addPrefetch,
  assume,
  duplicateInames,
  fixParameters,
  generateCode,
  getMemAccessMap,
  getOpMap,
  getSynchronizationMap,
  globalArg,
  joinInames,
  LoomError,
  makeKernel,
  precompute,
  prioritizeLoops,
  renameIname,
  saveAndReloadTemporaries,
  setOptions,
  setTemporaryAddressSpace,
  splitIname,
  tagArrayAxes,
  tagInames,
  valueArg,
  type LoopKernel,
} from '@loom/core';
import { cpuDevice, jsTarget } from '@loom/codegen-js';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { domain, f32, i32, insn, kernel } from '@loom/dsl';

/**
 * Every field as JSON, with the sets' fresh existential names (`q~17`: numbered by a
 * counter, so they differ between two builds of one kernel) renumbered by first use.
 */
function canonical(knl: LoopKernel): string {
  const json = JSON.stringify(knl.fields(), (_, v) => (v instanceof Map ? [...v] : v));
  const fresh = new Map<string, string>();
  return json.replace(
    /\w+~\d+/g,
    (name) => fresh.get(name) ?? (fresh.set(name, `fresh${fresh.size}`), `fresh${fresh.size - 1}`),
  );
}

/** Same kernel: every field equal, the same printout, the same code for every target. */
function assertSameKernel(
  built: LoopKernel,
  functional: LoopKernel,
  dtypes: Record<string, 'float32' | 'int32'> = {},
): void {
  assert.is(canonical(built), canonical(functional));
  assert.is(built.toString(), functional.toString());
  const typed = (k: LoopKernel) =>
    addDtypes(k, Object.fromEntries(Object.entries(dtypes).filter(([name]) => k.arg(name)?.dtype === undefined)));
  for (const target of [jsTarget(), openclTarget(), wgslTarget()]) {
    assert.is(generateCode(typed(built), target).code, generateCode(typed(functional), target).code);
  }
}

test('renameInamesInBatch: a record and the Kennedy fusion map give the core kernel', () => {
  const text = ['{ [j0, j1, k]: 0 <= j0, j1, k < n }', 'a[j0] = 2*x[j0]\nb[j1] = a[j1] + 1\nc[k] = 3'] as const;
  const built = kernel(text[0], text[1]);
  const batches = getKennedyUnweightedFusionCandidates(built.kernel, ['j0', 'j1']);
  assert.equal([...batches], [['ifused', ['j0', 'j1']]]);
  const functional = renameInamesInBatch(makeKernel(text[0], text[1]), batches);
  assertSameKernel(built.renameInamesInBatch(batches).kernel, functional, { x: 'float32' });
  assertSameKernel(built.renameInamesInBatch({ ifused: ['j0', 'j1'] }).kernel, functional, { x: 'float32' });
});

test('the tutorial: double a vector', () => {
  assertSameKernel(
    kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]').kernel,
    makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]'),
    { a: 'float32' },
  );
});

test('the tutorial: transpose and double, declared arguments and loop priorities', () => {
  const text = `
    out[j,i] = a[i,j] {id=transpose}
    out[ii,jj] = 2*out[ii,jj] {dep=transpose}
  `;
  const built = kernel('{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }', text, { name: 'transpose_and_dbl' })
    .args({ a: f32('n', 'n'), out: f32.out('n', 'n') })
    .prioritize('i,j')
    .prioritize(['ii', 'jj']);
  let functional = makeKernel(
    '{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }',
    text,
    [
      globalArg('a', { dtype: 'float32', shape: ['n', 'n'], isInput: true, isOutput: false }),
      globalArg('out', { dtype: 'float32', shape: ['n', 'n'], isInput: false, isOutput: true }),
      valueArg('n'),
      '...',
    ],
    { name: 'transpose_and_dbl' },
  );
  functional = prioritizeLoops(prioritizeLoops(functional, 'i,j'), 'ii,jj');
  assertSameKernel(built.kernel, functional);
});

test('the tutorial: loop nesting and options', () => {
  const built = kernel('{ [i,j]: 0<=i,j<n }', 'a[i,j] = 0').prioritize('j,i').options({ writeCode: false });
  const functional = setOptions(prioritizeLoops(makeKernel('{ [i,j]: 0<=i,j<n }', 'a[i,j] = 0'), 'j,i'), {
    writeCode: false,
  });
  assertSameKernel(built.kernel, functional, { a: 'float32' });
});

test('split, tag, unroll, slabs, assumptions', () => {
  const base = () => makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]');
  const built = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]')
    .assume('n mod 16 = 0')
    .split('i', 16, { outer: 'g.0', slabs: [0, 1] })
    .split('i_inner', 4, { inner: 'unr', outerIname: 'lane', innerIname: 'u' })
    .tag({ lane: 'l.0' });
  let functional = assume(base(), 'n mod 16 = 0');
  functional = splitIname(functional, 'i', 16, { outerTag: 'g.0', slabs: [0, 1] });
  functional = splitIname(functional, 'i_inner', 4, { innerTag: 'unr', outerIname: 'lane', innerIname: 'u' });
  functional = tagInames(functional, { lane: 'l.0' });
  assertSameKernel(built.kernel, functional, { a: 'float32' });
});

test('tile = two splits, their tags and the loop order', () => {
  const text = ['{ [i,j,k]: 0<=i<n and 0<=j<m and 0<=k<l }', 'c[i, j] = sum(k, a[i, k]*b[k, j])'] as const;
  const built = kernel(...text)
    .tile('i', 'j', 16, 16, { outer: 'g', inner: 'l' })
    .split('k', 16)
    .prefetch('a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' })
    .prefetch('b', ['j_inner', 'k_inner'], { defaultTag: 'l.auto' })
    .prioritize('k_outer,k_inner');
  let functional = makeKernel(...text);
  functional = splitIname(functional, 'i', 16, { outerTag: 'g.1', innerTag: 'l.1' });
  functional = splitIname(functional, 'j', 16, { outerTag: 'g.0', innerTag: 'l.0' });
  functional = prioritizeLoops(functional, 'i_outer,j_outer,i_inner,j_inner');
  functional = splitIname(functional, 'k', 16);
  functional = addPrefetch(functional, 'a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' });
  functional = addPrefetch(functional, 'b', ['j_inner', 'k_inner'], { defaultTag: 'l.auto' });
  functional = prioritizeLoops(functional, 'k_outer,k_inner');
  assertSameKernel(built.kernel, functional, { a: 'float32', b: 'float32' });

  // without tags: loops, outer ones outside
  const loops = kernel('{ [i,j]: 0<=i,j<n }', 'out[i,j] = a[j,i]').tile('i', 'j', 8, 4);
  assert.equal(loops.kernel.loopPriorities, [['i_outer', 'j_outer', 'i_inner', 'j_inner']]);
  assert.equal(loops.kernel.inameTags.size, 0);
  // one tag for both
  const unrolled = kernel('{ [i,j]: 0<=i,j<n }', 'out[i,j] = a[j,i]').tile('i', 'j', 4, 4, { inner: 'unr' });
  assert.equal([...unrolled.kernel.inameTags.keys()].sort(), ['i_inner', 'j_inner']);
});

test('dup, rename, join, fix, dtypes, space, layout, nosync, saveReload', () => {
  const text = `
    out[i, j] = a[i, j] + 1 {id=w}
    b[i, j] = 2 {id=z}
  `;
  const base = () => makeKernel('{ [i,j]: 0<=i<n and 0<=j<4 }', text);
  const built = kernel('{ [i,j]: 0<=i<n and 0<=j<4 }', text)
    .rename('i', 'row')
    .fix({ n: 8 })
    .join(['row', 'j'], 'rj', { tag: 'l.0' })
    .dup('rj', { within: 'z' })
    .dtypes({ a: 'float32' })
    .layout('a', 'f,f');
  let functional = renameIname(base(), 'i', 'row');
  functional = fixParameters(functional, { n: 8 });
  functional = joinInames(functional, ['row', 'j'], 'rj', { tag: 'l.0' });
  functional = duplicateInames(functional, 'rj', { within: 'z' });
  functional = addDtypes(functional, { a: 'float32' });
  functional = tagArrayAxes(functional, 'a', 'f,f');
  assertSameKernel(built.kernel, functional);
  assert.equal(built.inames, ['rj', 'rj_0']);

  // the tutorial's rotation across a global barrier
  const rotate = `
    for i
      <>tmp = arr[i] {id=maketmp,dep=*}
      ... gbarrier {id=bar,dep=*maketmp}
      arr[(i + 1) % n] = tmp {id=rotate,dep=*bar}
    end
  `;
  // the shape of `arr` cannot be inferred (its index is not affine): declared from the start
  const saved = kernel('[n] -> {[i] : 0<=i<n}', rotate, {
    name: 'rotate_v2',
    assumptions: 'n mod 16 = 0',
    args: { arr: i32.inout('n') },
  })
    .split('i', 16, { inner: 'l.0', outer: 'g.0' })
    .saveReload();
  let savedFunctional = makeKernel(
    '[n] -> {[i] : 0<=i<n}',
    rotate,
    [globalArg('arr', { shape: ['n'], dtype: 'int32', isInput: true, isOutput: true }), valueArg('n'), '...'],
    {
      name: 'rotate_v2',
      assumptions: 'n mod 16 = 0',
    },
  );
  savedFunctional = saveAndReloadTemporaries(
    splitIname(savedFunctional, 'i', 16, { innerTag: 'l.0', outerTag: 'g.0' }),
  );
  assertSameKernel(saved.kernel, savedFunctional);

  const syncText = `
    <float32> t[i] = a[i] {id=w}
    out[i] = t[i] {id=r, dep=w}
  `;
  const noSync = kernel('{ [i]: 0<=i<16 }', syncText).tag({ i: 'l.0' }).space('t', 'local').nosync('local', 'w', 'r');
  const noSyncFunctional = addNosync(
    setTemporaryAddressSpace(tagInames(makeKernel('{ [i]: 0<=i<16 }', syncText), { i: 'l.0' }), 't', 'local'),
    'local',
    'w',
    'r',
  );
  assertSameKernel(noSync.kernel, noSyncFunctional, { a: 'float32' });
});

test('builders are immutable: a verb returns a new builder and leaves the old one as it was', () => {
  const start = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]');
  const before = start.toString();
  const split = start.split('i', 4);
  assert.is.not(split, start);
  assert.is(start.toString(), before);
  assert.equal(start.inames, ['i']);
  assert.equal(split.inames, ['i_outer', 'i_inner']);
  assert.ok(Object.isFrozen(start));
  // branching from one builder gives independent kernels
  const other = start.split('i', 8);
  assert.not.equal(other.kernel.domains, split.kernel.domains);
});

test('.args() rebuilds the kernel from its text and replays the transformations', () => {
  const late = kernel(domain`{ [i]: 0<=i<n }`, insn`out[i] = 2*a[i]`)
    .split('i', 4, { inner: 'unr' })
    .args({ a: f32('n'), out: f32.out('n') });
  const early = kernel(domain`{ [i]: 0<=i<n }`, insn`out[i] = 2*a[i]`)
    .args({ a: f32('n'), out: f32.out('n') })
    .split('i', 4, { inner: 'unr' });
  assert.is(late.toString(), early.toString());
  assert.is(late.kernel.arg('a')?.dtype, 'float32');
  assert.equal(late.inames, ['i_outer', 'i_inner']);
});

test('.args() must say the whole truth', () => {
  const double = () => kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]');
  const throws = (fn: () => unknown, pattern: RegExp) =>
    assert.throws(fn, (e: unknown) => e instanceof LoomError && pattern.test(e.message));
  throws(() => double().args({ a: f32('n') }), /the kernel writes the array 'out', which is not declared/);
  throws(() => double().args({ out: f32.out('n') }), /the kernel reads the array 'a', which is not declared/);
  throws(
    () => double().args({ a: f32.inout('n'), out: f32.out('n') }),
    /'a' is declared as an output, but the kernel never writes it/,
  );
  throws(
    () => double().args({ a: f32('n'), out: f32('n') }),
    /'out' is declared as an input, but the kernel writes it/,
  );
  throws(() => double().args({ a: f32(), out: f32.out() }), /parameter 'n' is not declared/);
  // a parameter may be declared as a value instead
  const declared = double().args({ a: f32(), out: f32.out(), n: i32.value() });
  assert.is(declared.kernel.arg('n')?.dtype, 'int32');
});

test('errors surface at the verb that causes them', () => {
  const double = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]');
  assert.throws(() => double.split('i', 0), /split factor must be a positive integer/);
  assert.throws(() => double.tag({ i: 'bogus' as never }), /unknown iname tag 'bogus'/);
});

test('precompute: the verb is the core function', () => {
  const text = ['{ [i]: 0<=i<n }', 'f(x) := x*x + 1\nout[i] = f(i) + f(i + 1)'] as const;
  const built = kernel(text[0], text[1])
    .split('i', 16, { outer: 'g.0', inner: 'l.0' })
    .precompute('f', ['i_inner'], { defaultTag: 'l.0' });
  const functional = precompute(
    splitIname(makeKernel(text[0], text[1]), 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' }),
    'f',
    ['i_inner'],
    { defaultTag: 'l.0' },
  );
  assertSameKernel(built.kernel, functional);
});

test('stats: the three maps of the kernel, as getOpMap, getMemAccessMap and getSynchronizationMap give them', () => {
  const built = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i] + 1')
    .dtypes({ a: 'float32' })
    .split('i', 64, { outer: 'g.0', inner: 'l.0' });
  const stats = built.stats({ subgroupSize: 32 });
  const functional = addDtypes(
    splitIname(makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i] + 1'), 'i', 64, { outerTag: 'g.0', innerTag: 'l.0' }),
    { a: 'float32' },
  );
  assert.is(stats.ops.toString(), getOpMap(functional, { subgroupSize: 32 }).toString());
  assert.is(stats.memAccesses.toString(), getMemAccessMap(functional, { subgroupSize: 32 }).toString());
  assert.is(stats.sync.toString(), getSynchronizationMap(functional).toString());
  // 64 work-items make 2 sub-groups per group
  assert.is(stats.ops.filterBy({ dtype: ['float32'] }).evalAndSum({ n: 640 }), 2 * 10 * 2);
  assert.is(stats.memAccesses.filterBy({ direction: ['load'] }).evalAndSum({ n: 640 }), 640);
});

test('issue 15 verbs: each is its core function', () => {
  const text = [
    '{ [i, j]: 0<=i<40 and 0<=j<8 }',
    'f(x) := 2*x\nout[i] = f(a[i, 0]) + sum(j, a[i, j]) {id=w}\nother[i] = sum(j, 2*a[i, j]) {id=v}',
  ] as const;
  const built = kernel(text[0], text[1])
    .split('i', 8, { within: 'id:w', outer: 'g.0' })
    .renameInames(['i'], 'row')
    .makeReductionInamesUnique()
    .dup('j_0', { within: 'id:v', newInames: ['jv'] })
    .prefetch('a', ['j'], { within: 'id:w', dimArgNames: ['ai', 'aj'] })
    .extractSubst('twice', '2*x', 'x')
    .expandSubst()
    .addInamesToInsn('row', 'id:v')
    .priority('id:w', 3)
    .tagInstructions('mine', 'writes:other');
  let functional = makeKernel(text[0], text[1]);
  functional = splitIname(functional, 'i', 8, { within: 'id:w', outerTag: 'g.0' });
  functional = renameInames(functional, ['i'], 'row');
  functional = makeReductionInamesUnique(functional);
  functional = duplicateInames(functional, 'j_0', { within: 'id:v', newInames: ['jv'] });
  functional = addPrefetch(functional, 'a', ['j'], { within: 'id:w', dimArgNames: ['ai', 'aj'] });
  functional = expandSubst(extractSubst(functional, 'twice', '2*x', 'x'));
  functional = addInamesToInsn(functional, 'row', 'id:v');
  functional = tagInstructions(setInstructionPriority(functional, 'id:w', 3), 'mine', 'writes:other');
  assertSameKernel(built.kernel, functional, { a: 'float32' });
  assertSameKernel(kernel(text[0], text[1]).chunk('i', 3).kernel, chunkIname(makeKernel(text[0], text[1]), 'i', 3), {
    a: 'float32',
  });
});

test('diffKernel: the verb is the core function, and its derivative is returned as typed', async () => {
  const text = ['{ [i]: 0<=i<n }', 'z[i] = sin(x[i])*x[i]'] as const;
  const built = kernel(text[0], text[1]).diffKernel('z', 'x', { copyOutputs: ['z'] });
  const [functional] = diffKernel(makeKernel(text[0], text[1]), 'z', 'x', { copyOutputs: ['z'] });
  assertSameKernel(built.kernel, functional, { x: 'float32' });
  const x = Float32Array.from([0.5, -1, 2]);
  const { z, z_dx } = await built.run(cpuDevice(), { x });
  assert.equal(Array.from(z as Float32Array), Array.from(Float32Array.from(x, (v) => Math.sin(v) * v)));
  // dz[i]/dx[k]: cos(x)*x + sin(x) where k is i
  const expected = Array.from({ length: 9 }, (_, e) => {
    const [i, k] = [Math.floor(e / 3), e % 3];
    return i === k ? Math.cos(x[i]) * x[i] + Math.sin(x[i]) : 0;
  });
  Array.from(z_dx as Float32Array).forEach((v, e) =>
    assert.ok(Math.abs(v - expected[e]) < 1e-6, `z_dx[${e}]: ${v} vs ${expected[e]}`),
  );
  // a derivative named otherwise than the signature says is refused, not mistyped
  assert.throws(
    () => kernel('{ [i]: 0<=i<n }', 'z[i] = x[i] + z_dx[i]').diffKernel('z', 'x'),
    /named 'z_dx_0' \('z_dx' is taken\)/,
  );
});

test("args in core's spelling (a list of globalArg) or a declaration that is not one is a LoomError, not a TypeError", () => {
  const list = [globalArg('a', { dtype: 'float32', shape: ['n'] }), '...'];
  for (const [args, pattern] of [
    [list, /args must map each argument's name to its declaration .*not a list/],
    [{ a: 3 }, /args\.a must be a declaration/],
  ] as const) {
    assert.throws(
      () => kernel(domain`{ [i]: 0<=i<n }`, insn`out[i] = a[i]`, { args } as never),
      (e: unknown) => e instanceof LoomError && pattern.test(e.message),
    );
  }
});

test.run();
