/**
 * Ports of loopy's test/test_loopy.py: the tests of its validity checks (loopy/check.py),
 * of the preprocessing they rely on, of its expression and instruction language, and kernels
 * run on every test device against plain JavaScript. Names are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  assignment,
  collectWarnings,
  expandSubst,
  expr,
  generateCode,
  globalArg,
  KernelCheckError,
  LoomError,
  makeKernel,
  parseExpression,
  printExpr,
  run,
  setTemporaryAddressSpace,
  tagInames,
  valueArg,
  type DType,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { preprocess } from '../../packages/core/src/preprocess/pipeline.ts';
import { supportsDType, testDevices } from '../support/devices.ts';

// {{{ test race detection

// test_ilp_write_race_detection_global: test_loopy.py.runtime-sizes.test.ts

test('test_ilp_write_race_avoidance_local', () => {
  // a local temporary written in an ILP loop gets one copy per lane, as a private one does.
  // Loom puts the lane axis in front (loopy appends it: (16, 17)), so that the lanes of
  // one work-item lie a work-group apart and consecutive work-items' copies are adjacent.
  let knl = makeKernel('{[i,j]: 0<=i<16 and 0<=j<17 }', '<> a[i] = 5+i+j', [], { name: 'loopy_kernel' });
  knl = tagInames(knl, { i: 'l.0', j: 'ilp' });
  const { result, warnings } = collectWarnings(() => preprocess(knl));
  const a = result.temporaries.get('a')!;
  assert.is(a.addressSpace, 'local');
  assert.equal(
    a.shape.map((e) => printExpr(e)),
    ['17', '16'],
  );
  assert.equal(warnings.map(String), []);
});

test('test_ilp_write_race_avoidance_private', () => {
  let knl = makeKernel('{[j]: 0<=j<16 }', '<> a = 5+j', [], { name: 'loopy_kernel' });
  knl = tagInames(knl, { j: 'ilp' });
  const { result, warnings } = collectWarnings(() => preprocess(knl));
  assert.equal(
    result.temporaries.get('a')!.shape.map((e) => printExpr(e)),
    ['16'],
  );
  // each lane has its own copy: no race to report
  assert.equal(warnings.map(String), []);
});

// }}}

test('test_multiple_writes_to_local_temporary', () => {
  // Loopy would previously only handle barrier insertion correctly if exactly one
  // instruction wrote to each local temporary. This tests that multiple writes are OK
  // (and that the local-temporary checks accept them: each writer covers l.0).
  let knl = makeKernel('{[i]: 0<=i<5}', '<> temp[i, 0] = 17\ntemp[i, 1] = 15');
  knl = tagInames(knl, { i: 'l.0' });
  const code = generateCode(knl, openclTarget()).code;
  assert.match(code, /__local int temp\[10\];/);
  assert.match(code, /temp\[2 \* lid\(0\)\] = 17;\s+temp\[2 \* lid\(0\) \+ 1\] = 15;/);
});

test('test_non_integral_array_idx_raises', () => {
  // as loopy: 'a' has no shape and makeKernel accepts it (the non-affine index leaves the
  // one-axis argument shape-less); code generation refuses the non-integral index
  const instructions = 'out[j] = 0 {id=init}\nout[i] = a[1.94**i-1] {dep=init}';
  const knl = makeKernel('{[i, j]: 0<=i<=4 and 0<=j<16}', instructions, [globalArg('a', { dtype: 'float64' }), '...']);
  assert.throws(
    () => generateCode(knl, openclTarget()),
    (e: unknown) => e instanceof KernelCheckError && e.check === 'integer_subscript_indices',
  );
});

for (const device of testDevices()) {
  test(`${device.name}: test_bare_data_dependency`, async () => {
    // the loop bound is a temporary, read from the argument n when the kernel runs
    const knl = makeKernel(
      ['[znirp] -> {[i]: 0<=i<znirp}'],
      ['<> znirp = n', 'a[i] = 1'],
      [globalArg('a', { dtype: 'float32', shape: ['n'] }), valueArg('n', 'int32')],
    );
    const n = 20000;
    const { a } = await run(knl, device, { n });
    assert.is((a as Float32Array).length, n);
    assert.ok((a as Float32Array).every((x) => x === 1));
  });
}

test('test_dependent_domain_insn_iname_finding', () => {
  // the loop over isrc is bounded by temporaries written inside isrc_box: it runs inside it.
  // loopy's two arguments without a shape are declared so each (Loom's globalArg takes one name);
  // indexed by the temporary src_ibox, they stay shape-less: as long as the arrays passed, every
  // access guarded and checked when the kernel runs
  let knl = makeKernel(
    ['{[isrc_box]: 0<=isrc_box<nsrc_boxes}', '{[isrc]: isrc_start<=isrc<isrc_end}'],
    [
      '<> src_ibox = source_boxes[isrc_box]',
      '<> isrc_start = box_source_starts[src_ibox]',
      '<> isrc_end = isrc_start+box_source_counts_nonchild[src_ibox]',
      '<> strength = strengths[isrc] {id=set_strength}',
    ],
    [
      globalArg('box_source_starts', { shape: null }),
      globalArg('box_source_counts_nonchild', { shape: null }),
      globalArg('strengths', { shape: 'nsources' }),
      '...',
    ],
    { name: 'loopy_kernel' },
  );
  assert.ok(knl.instructions.find((i) => i.id === 'set_strength')!.withinInames.includes('isrc_box'));
  knl = addDtypes(knl, {
    source_boxes: 'int32',
    box_source_starts: 'int32',
    box_source_counts_nonchild: 'int32',
    strengths: 'float64',
    nsources: 'int32',
  });
  // the isrc loop's bounds are the temporaries that iteration of isrc_box set
  assert.match(
    generateCode(knl, openclTarget()).code,
    /for \(int isrc = isrc_start; isrc <= -1 \+ isrc_end; \+\+isrc\)/,
  );
});

// {{{ the expression and instruction language

test('test_type_inference_no_artificial_doubles', () => {
  const knl = makeKernel(
    '{[i]: 0<=i<n}',
    ['<> bb = a[i] - b[i]', 'c[i] = bb'],
    [
      globalArg('a', { dtype: 'float32', shape: ['n'] }),
      globalArg('b', { dtype: 'float32', shape: ['n'] }),
      globalArg('c', { dtype: 'float32', shape: ['n'] }),
      valueArg('n', 'int32'),
    ],
    { assumptions: 'n>=1' },
  );
  assert.not.match(generateCode(knl, openclTarget()).code, /double/);
});

test('test_nosync_option_parsing', () => {
  const knl = makeKernel(
    '{[i]: 0 <= i < 10}',
    `
    <>t = 1 {id=insn1,nosync=insn1}
    t = 2   {id=insn2,nosync=insn1:insn2}
    t = 3   {id=insn3,nosync=insn1@local:insn2@global:insn3@any}
    t = 4   {id=insn4,nosync_query=id:insn*@local}
    t = 5   {id=insn5,nosync_query=id:insn1}
  `,
  );
  const text = knl.toString();
  // as loopy prints them: no_sync_with=, each entry with its scope
  assert.ok(text.includes('id=insn1, no_sync_with=insn1@any'), text);
  assert.ok(text.includes('id=insn2, no_sync_with=insn1@any:insn2@any'), text);
  assert.ok(text.includes('id=insn3, no_sync_with=insn1@local:insn2@global:insn3@any'), text);
  assert.ok(text.includes('id=insn4, no_sync_with=insn1@local:insn2@local:insn3@local:insn5@local'), text);
  assert.ok(text.includes('id=insn5, no_sync_with=insn1@any'), text);
});

for (const device of testDevices()) {
  test(`${device.name}: test_if_else`, async () => {
    // if/elif/else blocks whose instructions waive barriers among the writers of a (nosync_query)
    const first = makeKernel(
      '{ [i]: 0<=i<50}',
      `
      if i % 3 == 0
          a[i] = 15  {nosync_query=writes:a}
      elif i % 3 == 1
          a[i] = 11  {nosync_query=writes:a}
      else
          a[i] = 3  {nosync_query=writes:a}
      end
    `,
    );
    const { a } = await run(first, device, {});
    assert.equal(
      Array.from(a as Int32Array),
      Array.from({ length: 50 }, (_, i) => [15, 11, 3][i % 3]),
    );

    const second = makeKernel(
      '{ [i]: 0<=i<50}',
      `
      for i
          if i % 2 == 0
              if i % 3 == 0
                  a[i] = 15  {nosync_query=writes:a}
              elif i % 3 == 1
                  a[i] = 11  {nosync_query=writes:a}
              else
                  a[i] = 3  {nosync_query=writes:a}
              end
          else
              a[i] = 4  {nosync_query=writes:a}
          end
      end
    `,
    );
    const out2 = (await run(second, device, {})).a as Int32Array;
    assert.equal(
      Array.from(out2),
      Array.from({ length: 50 }, (_, i) => (i % 2 ? 4 : [15, 11, 3][i % 3])),
    );

    const third = makeKernel(
      '{ [i,j]: 0<=i,j<50}',
      `
      for i
          if i < 25
              for j
                  if j % 2 == 0
                      a[i, j] = 1  {nosync_query=writes:a}
                  else
                      a[i, j] = 0  {nosync_query=writes:a}
                  end
              end
          else
              for j
                  if j % 2 == 0
                      a[i, j] = 0  {nosync_query=writes:a}
                  else
                      a[i, j] = 1  {nosync_query=writes:a}
                  end
              end
          end
      end
    `,
    );
    const out3 = (await run(third, device, {})).a as Int32Array;
    assert.equal(
      Array.from(out3),
      Array.from({ length: 2500 }, (_, k) => Number(Math.floor(k / 50) < 25 === (k % 50) % 2 < 1)),
    );
  });

  test(`${device.name}: test_assign_to_linear_subscript`, async () => {
    const knl1 = makeKernel('{ [i]: 0<=i<n}', 'a[i,i] = 1');
    const knl2 = makeKernel('{ [i]: 0<=i<n}', 'a[[i*n + i]] = 1', [globalArg('a', { shape: ['n', 'n'] }), '...']);
    const a1 = new Float32Array(100);
    const a2 = new Float32Array(100);
    await run(knl1, device, { a: { data: a1, shape: [10, 10] } });
    await run(knl2, device, { a: a2, n: 10 });
    assert.equal(Array.from(a2), Array.from(a1));
    assert.equal(Array.from(a2).filter((x) => x === 1).length, 10);
  });

  test(`${device.name}: test_conditional`, async () => {
    const knl = makeKernel(
      '{ [i,j]: 0<=i,j<n }',
      `
      <> my_a = a[i,j] {id=read_a}
      <> a_less_than_zero = my_a < 0 {dep=read_a,inames=i:j}
      my_a = 2*my_a {id=twice_a,dep=read_a,if=a_less_than_zero}
      my_a = my_a+1 {id=aplus,dep=twice_a,if=a_less_than_zero}
      out[i,j] = 2*my_a {dep=aplus}
    `,
      [
        globalArg('a', { dtype: 'float32', shape: 'auto' }),
        globalArg('out', { dtype: 'float32', shape: 'auto' }),
        '...',
      ],
    );
    const n = 20;
    const a = Float32Array.from({ length: n * n }, (_, k) => ((k * 37) % 11) - 5);
    const { out } = await run(knl, device, { a: { data: a, shape: [n, n] } });
    assert.equal(
      Array.from(out as Float32Array),
      Array.from(a, (x) => 2 * (x < 0 ? 2 * x + 1 : x)),
    );
  });

  test(`${device.name}: test_conditional_two_ways`, async () => {
    const decls = [
      globalArg('a', { dtype: 'float32', shape: 'auto' }),
      globalArg('out', { dtype: 'float32', shape: 'auto' }),
      '...',
    ] as const;
    const knl = makeKernel(
      '{ [i,j]: 0<=i,j<n }',
      `
      <> b = i > 3
      <> c = i > 1
      out[i] = a[i] {id=init}
      if b
          out[i] = 2*a[i]  {if=c,dep=init}
      end
    `,
      [...decls],
    );
    const ref = makeKernel(
      '{ [i,j]: 0<=i,j<n }',
      `
      <> b = i > 3
      <> c = i > 1
      out[i] = a[i] {id=init}
      if b and c
          out[i] = 2*a[i]  {dep=init}
      end
    `,
      [...decls],
    );
    const a = Float32Array.from({ length: 30 }, (_, k) => k - 7);
    const got = (await run(knl, device, { a, n: 30 })).out as Float32Array;
    const want = (await run(ref, device, { a, n: 30 })).out as Float32Array;
    assert.equal(Array.from(got), Array.from(want));
    assert.equal(
      Array.from(got),
      Array.from(a, (x, i) => (i > 3 ? 2 * x : x)),
    );
  });

  test(`${device.name}: test_half_complex_conditional`, async () => {
    // a conditional between a real 0 and a complex 0j: complex128, which WGSL lacks (no float64)
    const knl = makeKernel('{[i]: 0 <= i < 10}', 'tmp[i] = 0 if i < 5 else 0j');
    if (!supportsDType(device, 'float64')) {
      console.log(
        `${device.name}: test_half_complex_conditional runs in complex128, whose float64 parts WGSL lacks: a LoomError`,
      );
      let error: unknown;
      await run(knl, device, {}).catch((e) => (error = e));
      assert.ok(error instanceof LoomError && /complex128, whose parts are float64/.test(error.message), String(error));
      return;
    }
    const { tmp } = await run(knl, device, {});
    assert.instance(tmp, Float64Array);
    assert.equal(Array.from(tmp as Float64Array), new Array(20).fill(0));
  });

  // test_empty_domain: test_loopy.py.runtime-sizes.test.ts

  test(`${device.name}: test_pow`, async () => {
    const pairs: [DType, DType][] = [
      ['int32', 'uint32'],
      ['int64', 'uint64'],
      ['int32', 'float64'],
      ['float64', 'int32'],
      ['int64', 'int32'],
      ['float32', 'float64'],
      ['float64', 'float32'],
    ];
    for (const [baseType, expType] of pairs) {
      // numpy's result dtypes: int32**uint32 is int64, int64**uint64 float64, ints with floats floats
      const resultType =
        ({ 'int32,uint32': 'int64', 'int64,uint64': 'float64', 'int64,int32': 'int64' } as Record<string, DType>)[
          `${baseType},${expType}`
        ] ?? 'float64';
      const missing = [baseType, expType, resultType].find((t) => !supportsDType(device, t));
      if (missing) {
        console.log(`${device.name}: test_pow(${baseType}, ${expType}) skipped: the device has no ${missing}`);
        continue;
      }
      const knl = addDtypes(makeKernel('{[i]: 0<=i<n}', 'res[i] = base[i] ** power[i]'), {
        base: baseType,
        power: expType,
      });
      const values = (t: DType) =>
        Array.from({ length: 10 }, (_, k) => (t.startsWith('float') ? ((k * 7) % 10) / 10 + 0.05 : (k * 7) % 6));
      const host = (t: DType, xs: number[]) => {
        if (t === 'int64') return BigInt64Array.from(xs, BigInt);
        if (t === 'uint64') return BigUint64Array.from(xs, BigInt);
        return ({ int32: Int32Array, uint32: Uint32Array, float32: Float32Array, float64: Float64Array } as const)[
          t as 'int32'
        ]!.from(xs);
      };
      const base = host(baseType, values(baseType));
      const power = host(expType, values(expType).reverse());
      const { res } = await run(knl, device, { base, power });
      const expected = Array.from(
        base as ArrayLike<number | bigint>,
        (b, k) => Number(b) ** Number((power as ArrayLike<number | bigint>)[k]),
      );
      const got = Array.from(res as ArrayLike<number | bigint>, Number);
      assert.is(
        (res as { constructor: { name: string } }).constructor.name,
        { int64: 'BigInt64Array', float64: 'Float64Array' }[resultType as 'int64'],
        `${baseType} ** ${expType}`,
      );
      got.forEach((x, k) =>
        assert.ok(
          Math.abs(x - expected[k]) <= 1e-6 * Math.abs(expected[k]),
          `${baseType} ** ${expType} at ${k}: ${x} vs ${expected[k]}`,
        ),
      );
    }
  });

  test(`${device.name}: test_modulo_vs_type_context`, async () => {
    // the float64 temporary does not make the remainder a float one: i % 10 stays integer
    const knl = makeKernel(
      '{[i]: 0 <= i < 10}',
      ['<float64> a = i % 10', 'out[i] = a'],
      [globalArg('out', { dtype: 'float32', shape: [10] })],
    );
    if (!supportsDType(device, 'float64')) {
      console.log(`${device.name}: test_modulo_vs_type_context needs a float64 temporary, which WGSL lacks`);
      return;
    }
    const { out } = await run(knl, device, {});
    assert.equal(
      Array.from(out as Float32Array),
      Array.from({ length: 10 }, (_, i) => i),
    );
  });

  test(`${device.name}: test_scalar_temporary`, async () => {
    // loopy declares tmp a global TemporaryVariable among the arguments; Loom with <> and setTemporaryAddressSpace
    const knl = setTemporaryAddressSpace(
      makeKernel('{:}', ['<> tmp = 2*x', 'y = 2*tmp'], [valueArg('x', 'float32'), '...']),
      'tmp',
      'global',
    );
    const { y } = await run(knl, device, { x: 0.375 });
    assert.equal(Array.from(y as Float32Array), [1.5]);
  });
}

test('test_floor_div_modulo_with_uint_index', () => {
  const knl = makeKernel('{[i]: 0<=i<10}', 'a[map[i] // 2, map[i] % 35] = i', [
    globalArg('map', { dtype: 'uint64', shape: 'auto' }),
    globalArg('a', { dtype: 'float64', shape: [10, 4] }),
  ]);
  // the code generates (loopy: "check the codegen is successful")
  assert.match(generateCode(knl, openclTarget()).code, /a\[/);
});

test('test_type_cast_parse_stringify_roundtrip', () => {
  // loopy's TypeCast(np.float64, x[i]); Loom spells a cast as the dtype's name
  const e = expr.cast('float64', parseExpression('x[i]'));
  assert.ok(expr.exprEquals(parseExpression(printExpr(e)), e));
});

test('test_parse_type_cast', () => {
  // loopy compares a kernel built from TypeCast nodes with one parsed from text
  const fromNodes = makeKernel('{[i]: 0<=i<10}', [
    assignment(parseExpression('out[i]'), expr.cast('float64', parseExpression('x[i]')), { id: 'insn' }),
  ]);
  const fromText = makeKernel('{[i]: 0<=i<10}', 'out[i] = float64(x[i])');
  assert.ok(expr.exprEquals(fromNodes.instructions[0].expression!, fromText.instructions[0].expression!));
});

test('test_complicated_subst', async () => {
  // tagged calls h$one(i), h$two(i) and g$two(x) are calls of the rules h and g; the stack
  // match expands g$two only where h$two calls it: h$two then calls a copy of h (h_0)
  const knl = makeKernel(
    '{[i]: 0<=i<n}',
    `
    f(x) := x*a[x]
    g(x) := 12 + f(x)
    h(x) := 1 + g(x) + 20*g$two(x)

    a[i] = h$one(i) * h$two(i)
  `,
  );
  const expanded = expandSubst(knl, '... > id:h and tag:two > id:g and tag:two');
  const keys = [...expanded.substitutions.keys()];
  for (const [letter, howMany] of [
    ['f', 1],
    ['g', 1],
    ['h', 2],
  ] as const) {
    assert.is(keys.filter((k) => k.startsWith(letter)).length, howMany, keys.join(', '));
  }
  assert.match(expanded.toString(), /a\[i\] = h\$one\(i\)\*h_0\$two\(i\)/);
  // (below the matched levels every call matches too: f inside that g$two is written out)
  assert.match(expanded.toString(), /h_0\(x\) := 1 \+ g\(x\) \+ 20\*\(12 \+ x\*a\[x\]\)/);
  // the values are the rules', expanded or not
  const { cpuDevice } = await import('@loom/codegen-js');
  const h = (x: number, ax: number) => 1 + 21 * (12 + x * ax);
  for (const kernel of [knl, expanded]) {
    const a = new Float64Array([1, 2, 3]);
    const expected = Array.from(a, (ax, x) => h(x, ax) ** 2);
    await run(kernel, cpuDevice(), { a });
    assert.equal(Array.from(a), expected);
  }
});

// }}}

test.run();
