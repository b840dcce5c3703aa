/**
 * Ports of loopy's test/test_transform.py: arrays and temporaries: batching, concatenation, privatization, axis names, padding,
 * copies, and the small transformations that must leave the results unchanged.
 * Tests of the same transformations in test_loopy.py and test_reduction.py are named after their
 * file. Each transformed kernel runs on every test device and is compared with the same
 * computation in plain JavaScript; where loopy only inspects the kernel, so do these, and they
 * run it as well.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DeviceArray,
  findUnusedAxisTag,
  inferUnknownTypes,
  untagInames,
  addInamesToInsn,
  setArrayAxisNames,
  addBarrier,
  addPadding,
  addPaddingToAvoidBankConflicts,
  concatenateArrays,
  findPaddingMultiple,
  fuseKernels,
  makeCopyKernel,
  privatizeTemporariesWithInames,
  splitArrayAxis,
  toBatched,
  unprivatizeTemporariesWithInames,
  addDtypes,
  removeInstructions,
  removeUnusedArguments,
  replaceInstructionIds,
  setArgumentOrder,
  setInstructionPriority,
  tagArrayAxes,
  tagInstructions,
  bufferArray,
  addPrefetch,
  duplicateInames,
  globalArg,
  makeKernel,
  printExpr,
  removeInamesFromInsn,
  removeUnusedInames,
  renameInames,
  run,
  splitIname,
  setTemporaryAddressSpace,
  stringifyKernel,
  tagInames,
  type Expr,
  type LoopKernel,
} from '@loom/core';
import { assertClose, randomFloat32, testDevices } from '../../support/devices.ts';
import { f32, range, throwsLoom, within } from './helpers.ts';

for (const device of testDevices()) {
  test(`${device.name}: test_to_batched, test_to_batched_temp`, async () => {
    const knl = addDtypes(makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i] = sum(j, a[i,j]*x[j])'), {
      out: 'float32',
      x: 'float32',
      a: 'float32',
    });
    const batched = toBatched(knl, 'nbatches', 'out,x');
    const [n, nb] = [5, 7];
    const a = randomFloat32(n * n, 1);
    const x = randomFloat32(nb * n, 2);
    const expected = range(nb * n, (q) => {
      const [k, i] = [Math.floor(q / n), q % n];
      let s = 0;
      for (let j = 0; j < n; j++) s = Math.fround(s + Math.fround(a[n * i + j] * x[n * k + j]));
      return s;
    });
    assertClose(
      (await run(batched, device, { a, x, n, nbatches: nb })).out as Float32Array,
      expected,
      'out',
      1e-6,
      1e-6,
    );

    const temp = addDtypes(
      makeKernel('{ [i,j]: 0<=i,j<n }', '<float32> cnst = 2.0\nout[i] = sum(j, cnst*a[i,j]*x[j])'),
      { out: 'float32', x: 'float32', a: 'float32' },
    );
    const batchedTemp = toBatched(setTemporaryAddressSpace(temp, 'cnst', 'private'), 'nbatches', 'out,x');
    // a private temporary belongs to one batch's iteration: it is not batched
    assert.equal(batchedTemp.temporaries.get('cnst')!.shape, []);
    assertClose(
      (await run(batchedTemp, device, { a, x, n, nbatches: nb })).out as Float32Array,
      expected.map((v) => 2 * v),
      'out with cnst',
      1e-6,
      1e-6,
    );
    const fixed = toBatched(knl, 3, ['out', 'x'], { sequential: true });
    assert.equal(fixed.args.map((q) => q.name).sort(), ['a', 'n', 'out', 'x']);
    throwsLoom(() => toBatched(knl, 'n', ['q']), /'q' is not an argument or temporary/);
  });

  test(`${device.name}: test_concatenate_arrays, splitArrayAxis`, async () => {
    const knl = addDtypes(
      makeKernel(
        '{[i]: 0<=i<10}',
        `
      <> a[i] = x[i]    {id=init_a}
      <> b[i] = y[i]    {id=init_b}
      out[i] = a[i] + b[i] {id=insn,dep=init_a:init_b}
    `,
      ),
      { x: 'float32', y: 'float32' },
    );
    const merged = concatenateArrays(knl, ['a', 'b'], 'c');
    assert.equal(
      merged.temporaries.get('c')!.shape.map((e) => printExpr(e)),
      ['20'],
    );
    const x = randomFloat32(10, 1);
    const y = randomFloat32(10, 2);
    assertClose(
      (await run(merged, device, { x, y })).out as Float32Array,
      range(10, (i) => x[i] + y[i]),
      'out',
      0,
      0,
    );
    throwsLoom(() => concatenateArrays(knl, ['a', 'x'], 'c'), /must all be temporaries or all arguments/);

    const vec = addDtypes(makeKernel('{[i]: 0<=i<12}', 'out[i] = 2*b[i]', [f32('b', [12]), f32('out', [12])]), {});
    const split = splitArrayAxis(vec, 'b', 0, 4);
    assert.equal(
      split.arg('b')!.shape!.map((e) => printExpr(e)),
      ['3', '4'],
    );
    const b = randomFloat32(12, 3);
    assertClose(
      (await run(split, device, { b })).out as Float32Array,
      range(12, (i) => 2 * b[i]),
      'out',
      0,
      0,
    );
    const fsplit = splitArrayAxis(vec, 'out', 0, 4, 'F');
    assert.match(stringifyKernel(fsplit), 'out[i % 4, i // 4]');
  });

  test(`${device.name}: test_privatize_with_nonzero_lbound, test_unprivatize, test_privatize_unprivatize_roundtrip`, async () => {
    const knl = makeKernel(
      '{[j]:10<=j<14}',
      `
      for j
        <> tmp = j
        out[j] = tmp
      end
    `,
      [globalArg('out', { dtype: 'int32', shape: [14] })],
      { name: 'arange_10_to_14', seqDependencies: true },
    );
    const priv = privatizeTemporariesWithInames(knl, 'j');
    assert.equal(
      priv.temporaries.get('tmp')!.shape.map((e) => printExpr(e)),
      ['4'],
    );
    const { out } = await run(priv, device, { out: new Int32Array(14) });
    assert.equal([...(out as Int32Array).slice(10)], [10, 11, 12, 13]);

    let m2l = makeKernel(
      ['{[icoeff]: 0<=icoeff<10}', '{[tgt_box]: 0<=tgt_box<20}', '{[src_box]: 0<=src_box<30}'],
      `
      for tgt_box
        <> temp[icoeff] = 0 {dup=icoeff}
        for src_box
          for icoeff
            temp[icoeff] = temp[icoeff] + deriv[icoeff] * src_coeffs[src_box, icoeff]
          end
        end
        tgt_coeffs[tgt_box, icoeff] = temp[icoeff] {dup=icoeff}
      end
    `,
      [f32('deriv', [10]), f32('src_coeffs', [30, 10]), f32('tgt_coeffs', [20, 10])],
      { name: 'unprivatize_m2l', seqDependencies: true },
    );
    m2l = renameInames(m2l, ['icoeff_0', 'icoeff', 'icoeff_1'], 'icoeff0');
    m2l = unprivatizeTemporariesWithInames(m2l, 'icoeff0', 'temp');
    assert.equal(m2l.temporaries.get('temp')!.shape, []);
    const deriv = range(10, (k) => k % 3);
    const src = range(300, (k) => (k % 5) - 2);
    const expected = range(200, (q) => {
      const c = q % 10;
      let s = 0;
      for (let b = 0; b < 30; b++) s += deriv[c] * src[10 * b + c];
      return s;
    });
    assertClose(
      (await run(m2l, device, { deriv, src_coeffs: src })).tgt_coeffs as Float32Array,
      expected,
      'tgt_coeffs',
      0,
      0,
    );
  });
}

test('test_unprivatize_error, test_privatize_unprivatize_roundtrip', () => {
  let knl = makeKernel(
    ['{[i]: 0<=i<10}', '{[j]: 0<=j<10}', '{[tgt_box]: 0<=tgt_box<20}', '{[src_box]: 0<=src_box<30}'],
    `
    for tgt_box
      <> temp[i, j] = 0 {dup=i:j}
      for src_box
        for i, j
          temp[j, i] = temp[i, j] + deriv[i, j] * src_coeffs[src_box, i, j]
        end
      end
      tgt_coeffs[tgt_box, i, j] = temp[i, j] {dup=i:j}
    end
  `,
    undefined,
    { name: 'unprivatize_m2l', seqDependencies: true },
  );
  knl = renameInames(knl, ['i_0', 'i_1', 'i'], 'i0');
  knl = renameInames(knl, ['j_0', 'j_1', 'j'], 'j0');
  throwsLoom(
    () => unprivatizeTemporariesWithInames(knl, 'i0', 'temp'),
    /axis 0 of 'temp' is indexed by 'i0' in some accesses and otherwise in others/,
  );
  throwsLoom(
    () => unprivatizeTemporariesWithInames(knl, ['i0', 'j0'], 'temp'),
    /axis 0 of 'temp' is indexed by 'i0', 'j0' in some accesses and otherwise in others/,
  );

  const domains = ['{[i]: 0<=i<10}', '{[imatrix]: 0<=imatrix<20}', '{[k]: 0<=k<30}'];
  const knl1 = makeKernel(
    domains,
    `
    for imatrix, i
      <> acc[imatrix] = 0
      for k
        acc[imatrix] = acc[imatrix] + a[imatrix, i, k] * vec[k]
      end
    end
  `,
    undefined,
    { name: 'roundtrip', seqDependencies: true },
  );
  const knl2 = makeKernel(
    domains,
    `
    for imatrix, i
      <> acc = 0
      for k
        acc = acc + a[imatrix, i, k] * vec[k]
      end
    end
  `,
    undefined,
    { name: 'roundtrip', seqDependencies: true },
  );
  assert.is(stringifyKernel(unprivatizeTemporariesWithInames(knl1, ['imatrix'], ['acc'])), stringifyKernel(knl2));
  assert.is(stringifyKernel(privatizeTemporariesWithInames(knl2, ['imatrix'], ['acc'])), stringifyKernel(knl1));
});

test("setArrayAxisNames names the inames made for an array's axes", () => {
  const knl = setArrayAxisNames(
    makeKernel('{[i, j]: 0<=i<4 and 0<=j<5}', 'out[i, j] = 2*a[i, j]', [f32('a', [4, 5]), f32('out', [4, 5])]),
    'a',
    'row,col',
  );
  assert.equal(
    addPrefetch(knl, 'a', ['i', 'j'])
      .inames.filter((n) => n.startsWith('a_'))
      .sort(),
    ['a_dim_col', 'a_dim_row'],
  );
  assert.equal(splitArrayAxis(knl, 'a', 1, 5).arg('a')!.dimNames, ['row', 'col_outer', 'col_inner']);
  assert.equal(
    bufferArray(setArrayAxisNames(knl, 'out', 'r,c'), 'out', { bufferInames: ['i', 'j'], defaultTag: null })
      .inames.filter((n) => n.startsWith('out_'))
      .sort(),
    ['out_init_c', 'out_init_r', 'out_store_c', 'out_store_r'],
  );
  throwsLoom(() => setArrayAxisNames(knl, 'a', 'one'), /'a' has 2 axes, but 1 names were given/);
});

for (const device of testDevices()) {
  test(`${device.name}: a prefetch through named axes runs`, async () => {
    const knl = addPrefetch(
      setArrayAxisNames(
        makeKernel('{[i, j]: 0<=i<4 and 0<=j<5}', 'out[i, j] = 2*a[i, j]', [f32('a', [4, 5]), f32('out', [4, 5])]),
        'a',
        'row,col',
      ),
      'a',
      ['j'],
      { defaultTag: 'l.auto' },
    );
    const a = randomFloat32(20, 3);
    assertClose(
      (await run(knl, device, { a })).out as Float32Array,
      range(20, (k) => 2 * a[k]),
      'out',
      0,
      0,
    );
  });
}

test('findPaddingMultiple, addPadding, addPaddingToAvoidBankConflicts, makeCopyKernel', () => {
  const knl = tagArrayAxes(
    makeKernel('{[i, j]: 0<=i<4 and 0<=j<5}', 'out[i, j] = a[i, j]', [f32('a', [4, 5]), f32('out', [4, 5])]),
    'a',
    'stride:5,stride:1',
  );
  // a row of 5 floats is 20 bytes: 16 of them fill 5 lines of 64 bytes exactly
  assert.is(findPaddingMultiple(knl, 'a', 0, 64, 0), 16);
  assert.is(findPaddingMultiple(knl, 'a', 0, 64, 0.25), 3);
  const padded = addPadding(knl, 'a', 0, 32);
  assert.is(printExpr((padded.arg('a')!.dimTags![0] as { stride: Expr }).stride), '8');
  // a row-major axis has a computed stride, padded as loopy pads it once its strides are fixed
  assert.equal(
    addPadding(knl, 'out', 0, 32)
      .arg('out')!
      .dimTags!.map((t) => printExpr((t as { stride: Expr }).stride)),
    ['8', '1'],
  );
  throwsLoom(() => addPadding(knl, 'a', 0, 6), /must be a positive multiple of the element size/);
  const local = setTemporaryAddressSpace(
    makeKernel('{[i, j]: 0<=i,j<32}', '<float32> t[i, j] = a[i, j]\nout[j, i] = t[i, j]', [
      f32('a', [32, 32]),
      f32('out', [32, 32]),
    ]),
    't',
    'local',
  );
  const banked = addPaddingToAvoidBankConflicts(local);
  assert.equal(
    banked.temporaries.get('t')!.dimTags!.map((t) => printExpr((t as { stride: Expr }).stride)),
    ['33', '1'],
  );
  // rows of 16 words are no multiple of 32 banks, yet put a column in 2 of them: found porting
  // test_linalg.py::test_transpose, whose 16 x 16 tile the earlier rule left unpadded
  const tile = (dtype: string, n: number) =>
    addPaddingToAvoidBankConflicts(
      setTemporaryAddressSpace(
        makeKernel(`{[i, j]: 0<=i,j<${n}}`, `<${dtype}> t[i, j] = a[i, j]\nout[j, i] = t[i, j]`, [
          globalArg('a', { dtype: dtype as 'float32', shape: [n, n] }),
          globalArg('out', { dtype: dtype as 'float32', shape: [n, n] }),
        ]),
        't',
        'local',
      ),
    )
      .temporaries.get('t')!
      .dimTags?.map((t) => printExpr((t as { stride: Expr }).stride));
  assert.equal(tile('float32', 16), ['17', '1']);
  assert.equal(tile('float32', 17), undefined, 'an odd row is conflict-free already');
  // a float64 spans two banks: 17 doubles are 34 words, a column in 16 bank pairs
  assert.equal(tile('float64', 16), ['17', '1']);
  assert.equal(tile('float64', 17), undefined);
  throwsLoom(() => addPaddingToAvoidBankConflicts(local, { banks: 0 }), /banks must be a positive integer/);
  const copy = makeCopyKernel('f,f');
  assert.equal(copy.arg('output')!.dimTags, [
    { kind: 'nested', level: 0 },
    { kind: 'nested', level: 1 },
  ]);
  throwsLoom(() => makeCopyKernel('f,f', 'c'), /2 new dim tags but 1 old ones/);
});

for (const device of testDevices()) {
  test(`${device.name}: makeCopyKernel runs, padded rows run, test_fusion`, async () => {
    const copy = makeCopyKernel('f,f');
    const input = randomFloat32(12, 4);
    const { output } = await run(copy, device, { input: { data: input, shape: [3, 4] } });
    assertClose(
      output as Float32Array,
      range(12, (k) => input[(k % 3) * 4 + Math.floor(k / 3)]),
      'output',
      0,
      0,
    );

    const padded = addPadding(
      tagArrayAxes(
        makeKernel('{[i, j]: 0<=i<4 and 0<=j<5}', 'out[i, j] = a[i, j]', [f32('a', [4, 5]), f32('out', [4, 5])]),
        'a',
        'stride:5,stride:1',
      ),
      'a',
      0,
      32,
    );
    // the padded rows reach past 4*5 elements: such data is passed as a DeviceArray allocated larger
    const rows = randomFloat32(4 * 8, 5);
    const onDevice = new DeviceArray(
      device,
      (await DeviceArray.from(device, rows, 'float32')).buffer,
      'float32',
      [4, 5],
    );
    assertClose(
      (await run(padded, device, { a: onDevice })).out as Float32Array,
      range(20, (k) => rows[8 * Math.floor(k / 5) + (k % 5)]),
      'out',
      0,
      0,
    );

    const exp = makeKernel('{ [i]: 0<=i<n }', 'e[i] = 2*z[i]', [f32('e', ['n']), f32('z', ['n']), '...'], {
      assumptions: 'n>0',
    });
    const total = makeKernel('{ [j]: 0<=j<n }', 'out2 = sum(j, e[j])', [f32('e', ['n']), f32('out2', []), '...'], {
      assumptions: 'n>0',
    });
    throwsLoom(() => fuseKernels([exp, total]), /kernel 0 writes 'e' and kernel 1 uses it, but nothing orders them/);
    const fused = fuseKernels([exp, total], { dataFlow: [['e', 0, 1]] });
    assert.is(fused.name, 'loopy_kernel_and_loopy_kernel');
    const z = randomFloat32(9, 6);
    const r = await run(fused, device, { z, n: 9 });
    assertClose(
      r.out2 as Float32Array,
      [z.reduce((s, v) => Math.fround(s + Math.fround(2 * v)), 0)],
      'out2',
      1e-6,
      1e-6,
    );
    // the same iname in both kernels is one loop; temporaries of the same name are kept apart
    const one = makeKernel('{[i]: 0<=i<4}', '<> t = 2*i\np[i] = t', [globalArg('p', { dtype: 'int32' })]);
    const two = makeKernel('{[i]: 0<=i<4}', '<> t = 3*i\nq[i] = t', [globalArg('q', { dtype: 'int32' })]);
    const both = fuseKernels([one, two], { suffixes: ['_a', '_b'] });
    assert.equal([...both.temporaries.keys()].sort(), ['t_a', 't_b']);
    assert.equal(both.inames, ['i']);
    const rb = await run(both, device, {});
    assert.equal([...(rb.p as Int32Array), ...(rb.q as Int32Array)], [0, 2, 4, 6, 0, 3, 6, 9]);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: the small transformations each leave a kernel that computes the same`, async () => {
    const base = () =>
      makeKernel(
        '{[i, j]: 0<=i<16 and 0<=j<4}',
        `
      <float32> t[i] = 2*a[i] {id=w}
      out[i] = t[i] + sum(j, b[i, j]) {id=r}
    `,
        [f32('a', [16]), f32('b', [16, 4]), f32('out', [16]), f32('spare', [3])],
      );
    const a = randomFloat32(16, 1);
    const b = range(64, (k) => (k % 7) - 3);
    const expected = range(16, (i) => Math.fround(2 * a[i]) + b[4 * i] + b[4 * i + 1] + b[4 * i + 2] + b[4 * i + 3]);
    const hw = tagInames(base(), { i: findUnusedAxisTag(base(), 'l') });
    assert.is(findUnusedAxisTag(hw, 'l'), 'l.1');
    const variants: [string, LoopKernel, Record<string, unknown>][] = [
      ['untagInames', untagInames(tagInames(base(), { j: 'unr' }), 'j'), {}],
      ['findUnusedAxisTag', hw, {}],
      [
        'removeUnusedInames',
        removeUnusedInames(
          makeKernel(
            '{[i, j, q]: 0<=i<16 and 0<=j<4 and 0<=q<2}',
            '<float32> t[i] = 2*a[i] {id=w}\nout[i] = t[i] + sum(j, b[i, j]) {id=r}',
            [f32('a', [16]), f32('b', [16, 4]), f32('out', [16])],
          ),
        ),
        {},
      ],
      ['addInamesToInsn', addInamesToInsn(base(), 'j', 'id:w'), {}],
      [
        'duplicateInames with tags',
        duplicateInames(base(), 'i', { within: 'id:w', newInames: ['iw'], tags: { i: 'l.0' } }),
        {},
      ],
      ['removeUnusedArguments', removeUnusedArguments(base()), {}],
      ['setArgumentOrder', setArgumentOrder(base(), 'spare,out,b,a'), {}],
      ['inferUnknownTypes', inferUnknownTypes(base(), { expectCompletion: true }), {}],
      ['addPaddingToAvoidBankConflicts', addPaddingToAvoidBankConflicts(base(), { banks: 4 }), {}],
      [
        'removeInstructions',
        removeInstructions(addBarrier(base(), 'id:w', 'id:r', { synchronizationKind: 'local' }), 'id:lbarrier'),
        {},
      ],
      [
        'setInstructionPriority, tagInstructions, replaceInstructionIds',
        replaceInstructionIds(tagInstructions(setInstructionPriority(base(), 'id:r', 2), 'x', 'id:r'), { w: ['w'] }),
        {},
      ],
    ];
    assert.equal(variants.find(([n]) => n === 'removeUnusedArguments')![1].arg('spare'), undefined);
    assert.is(variants.find(([n]) => n === 'duplicateInames with tags')![1].inameTags.get('iw')?.kind, 'local');
    for (const [what, knl, extra] of variants) {
      const inputs = knl.arg('spare') ? { a, b, spare: new Float32Array(3), ...extra } : { a, b, ...extra };
      assertClose((await run(knl, device, inputs)).out as Float32Array, expected, what, 1e-6, 1e-6);
    }
    // (test_remove_inames_from_insn's own kernel, a local c written across iterations of i_outer,
    // makes PoCL's work-group compiler abort the process on valid code; it is checked as code above)
    const removed = removeInamesFromInsn(
      splitIname(
        makeKernel('{[i]: 0<=i<10}', 'for i\n<> c = 1 {id=c}\nd[i] = c + i {dep=c}\nend', [
          globalArg('d', { dtype: 'int32' }),
          '...',
        ]),
        'i',
        2,
        { innerTag: 'l.0' },
      ),
      ['i_inner'],
      'id:c',
    );
    assert.equal(within(removed, 'c'), ['i_outer']);
    assert.equal(
      [...((await run(removed, device, {})).d as Int32Array)],
      Array.from({ length: 10 }, (_, i) => 1 + i),
    );
  });
}

test.run();
