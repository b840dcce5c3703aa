/**
 * Ports of loopy's test/test_transform.py: the inames: chunking, splitting within, mapping domains, renaming, duplicating, joining.
 * Tests of the same transformations in test_loopy.py and test_reduction.py are named after their
 * file. Each transformed kernel runs on every test device and is compared with the same
 * computation in plain JavaScript; where loopy only inspects the kernel, so do these, and they
 * run it as well.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addInamesForUnusedHwAxes,
  addPrefetch,
  affineMapInames,
  chunkIname,
  duplicateInames,
  fixParameters,
  generateCode,
  getInameDuplicationOptions,
  globalArg,
  hasSchedulableInameNesting,
  joinInames,
  makeKernel,
  makeReductionInamesUnique,
  mapDomain,
  prioritizeLoops,
  removeInamesFromInsn,
  removeUnusedInames,
  renameIname,
  renameInames,
  run,
  splitIname,
  splitReductionInward,
  splitReductionOutward,
  stringifyKernel,
  tagInames,
  valueArg,
  type LoopKernel,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { assertClose, randomFloat32, testDevices } from '../../support/devices.ts';
import { f32, range, sameSet, throwsLoom, within } from './helpers.ts';

function chunkKernel(): LoopKernel {
  return makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]', [f32('out'), f32('a'), '...'], { assumptions: 'n>0' });
}

// test_chunk_iname: test_loopy.py.runtime-sizes.test.ts (with the other sizes known only at run time)

test('test_chunk_iname: the chunks are contiguous and nearly equal; non-box loops are refused', () => {
  const knl = chunkIname(fixParameters(chunkKernel(), { n: 130 }), 'i', 3);
  // 130 = 44 + 43 + 43: the outer loop counts chunks, the inner one runs over a chunk
  assert.match(stringifyKernel(knl), 'out[i_inner + 44*min(i_outer, 1) + 43*(i_outer - min(i_outer, 1))]');
  // a chunk on l.0 is a work-group of ceil(n/3) work-items, sized at launch (the runs are in the runtime-sizes file)
  assert.not.match(
    generateCode(chunkIname(chunkKernel(), 'i', 3, { innerTag: 'l.0' }), openclTarget()).code,
    /reqd_work_group_size/,
  );
  const triangle = makeKernel('{[i, j]: 0<=i<10 and 0<=j<=i}', 'out[i, j] = 1');
  throwsLoom(() => chunkIname(triangle, 'j', 2), /not box-shaped about 'j'/);
  // found by the differential test: a loop bounded by i in a domain of its own counted
  // chunks in the domain's numbering of i, not the code's, and ran over the wrong points
  const nested = makeKernel(['{[i]: 0<=i<6}', '{[j]: 0<=j<=i}'], 'out[i, j] = 1');
  throwsLoom(() => chunkIname(nested, 'i', 3), /depends on 'i', so it is not box-shaped about 'i'/);
  throwsLoom(() => chunkIname(makeKernel('{[i]: 1<=i<10}', 'out[i] = 1'), 'i', 2), /'i' must start at 0/);
  throwsLoom(() => chunkIname(chunkKernel(), 'i', 0), /positive integer/);
});

test('test_split_iname_only_if_in_within', () => {
  const knl = makeKernel(
    '{[i]: 0<=i<10}',
    'c[i] = 3*d[i] {id=to_split}\na[i] = 2*b[i] {id=not_to_split}',
    [f32('a'), f32('b'), f32('c'), f32('d')],
    { name: 'splitter' },
  );
  const split = splitIname(knl, 'i', 4, { within: 'id:to_split' });
  assert.equal(within(split, 'to_split'), ['i_inner', 'i_outer']);
  assert.equal(within(split, 'not_to_split'), ['i']);
  throwsLoom(
    () => splitIname(knl, 'i', 4, { within: 'id:nobody' }),
    /option within: 'id:nobody' matches no instruction/,
  );
  throwsLoom(() => splitIname(knl, 'i', 4, { within: 'id:to_split and' }), /ends too early/);
});

for (const device of testDevices()) {
  test(`${device.name}: test_split_iname_only_if_in_within (run, with a reduction and a rule)`, async () => {
    const knl = makeKernel(
      '{[i, j]: 0<=i<10 and 0<=j<6}',
      `
      f(x) := x*b[j]
      c[i] = sum(j, f(a[i, j])) {id=to_split}
      d[i] = sum(j, f(2*a[i, j])) {id=not_to_split}
    `,
      [f32('a', [10, 6]), f32('b', [6]), f32('c', [10]), f32('d', [10])],
    );
    const split = splitIname(splitIname(knl, 'j', 4, { within: 'id:to_split' }), 'i', 3, {
      within: 'writes:d',
      outerTag: 'g.0',
      innerTag: 'l.0',
    });
    assert.match(stringifyKernel(split), 'sum((j_outer, j_inner)');
    const a = randomFloat32(60, 1);
    const b = randomFloat32(6, 2);
    const result = await run(split, device, { a, b });
    const dot = (i: number, s: number) => {
      let acc = 0;
      for (let j = 0; j < 6; j++) acc += s * a[6 * i + j] * b[j];
      return acc;
    };
    assertClose(
      result.c as Float32Array,
      range(10, (i) => dot(i, 1)),
      'c',
      1e-5,
      1e-6,
    );
    assertClose(
      result.d as Float32Array,
      range(10, (i) => dot(i, 2)),
      'd',
      1e-5,
      1e-6,
    );
  });
}

function twoDomains(): LoopKernel {
  const knl = makeKernel(
    ['[nx,nt] -> {[x, t]: 0 <= x < nx and 0 <= t < nt}', '[ni] -> {[i]: 0 <= i < ni}'],
    `
    a[x,t] = b[x,t]  {id=stmta}
    c[x,t] = d[x,t]  {id=stmtc}
    e[i] = f[i]
  `,
  );
  return addDtypes(knl, { b: 'float32', d: 'float32', f: 'float32' });
}

for (const device of testDevices()) {
  test(`${device.name}: test_map_domain_vs_split_iname`, async () => {
    const order = 'x, t_outer, t_inner';
    const mapped = prioritizeLoops(
      mapDomain(
        twoDomains(),
        '[nt] -> {[t] -> [t_outer, t_inner]: 0 <= t_inner < 32 and 32*t_outer + t_inner = t and 0 <= 32*t_outer + t_inner < nt}',
      ),
      order,
    );
    const split = prioritizeLoops(splitIname(twoDomains(), 't', 32), order);
    mapped.domains.forEach((d, k) =>
      assert.ok(sameSet(d, split.domains[k]), `domain ${k}: ${d} vs ${split.domains[k]}`),
    );
    assert.is(generateCode(mapped, device.target).code, generateCode(split, device.target).code);
    const [nx, nt, ni] = [8, 70, 5];
    const b = randomFloat32(nx * nt, 1);
    const d = randomFloat32(nx * nt, 2);
    const f = randomFloat32(ni, 3);
    const result = await run(mapped, device, { b, d, f, nx, nt, ni });
    assertClose(result.a as Float32Array, b, 'a', 0, 0);
    assertClose(result.c as Float32Array, d, 'c', 0, 0);
    assertClose(result.e as Float32Array, f, 'e', 0, 0);
  });
}

test('test_map_domain_transform_map_validity_and_errors', () => {
  const knl = addDtypes(
    makeKernel(
      ['[nx,nt] -> {[x, y, z, t]: 0 <= x,y,z < nx and 0 <= t < nt}', '[m] -> {[j]: 0 <= j < m}'],
      `
    a[y,x,t,z] = b[y,x,t,z]  {id=stmta}
    for j
      <>temp = j  {dep=stmta}
    end
  `,
    ),
    { b: 'float32' },
  );
  // a map over 2 of the 4 inames of one domain: the same as split and rename
  const prio = 'x, t_outer, t_inner, z, y_new';
  const mapped = prioritizeLoops(
    mapDomain(
      knl,
      '[nx,nt] -> {[t, y] -> [t_outer, t_inner, y_new]: 0 <= t_inner < 16 and 16*t_outer + t_inner = t and 0 <= 16*t_outer + t_inner < nt and y = y_new}',
    ),
    prio,
  );
  const split = prioritizeLoops(renameIname(splitIname(knl, 't', 16), 'y', 'y_new'), prio);
  mapped.domains.forEach((d, k) => assert.ok(sameSet(d, split.domains[k]), `domain ${k}`));
  assert.is(generateCode(mapped, openclTarget()).code, generateCode(split, openclTarget()).code);

  throwsLoom(
    () => mapDomain(knl, '[nx,nt] -> {[t, y, rogue] -> [t_new, y_new]: y = y_new and t = t_new}'),
    /map must be bijective/,
  );
  for (const map of [
    '[nx,nt] -> {[t, y, rogue] -> [t_new, y_new, rogue_new]: y = y_new and t = t_new and rogue = rogue_new}',
    '[nx,nt] -> {[t, y, x, z, rogue] -> [t_new, y_new, x_new, z_new, rogue_new]: y = y_new and t = t_new and x = x_new and z = z_new and rogue = rogue_new}',
    '[nx,nt] -> {[rogue] -> [rogue_new]: rogue = rogue_new}',
  ]) {
    throwsLoom(
      () => mapDomain(knl, map),
      /was not applicable to any domain\. The map must be applicable to exactly one domain/,
    );
  }
  const prioritized = prioritizeLoops(prioritizeLoops(knl, 'y, z'), 'x, z');
  throwsLoom(
    () => mapDomain(prioritized, '[nx,nt] -> {[t, y] -> [t_new, y_new]: y = y_new and t = t_new }'),
    /loop priority \(y, z\) contains iname\(s\) the map transforms/,
  );

  const partly = makeKernel(
    ['[n, m] -> { [i, j]: 0 <= i < n and 0 <= j < m }', '[ell] -> { [k]: 0 <= k < ell }'],
    `
    for i
      <>t0 = i  {id=stmt0}
      for j
        <>t1 = j  {id=stmt1, dep=stmt0}
      end
      <>t2 = i + 1  {id=stmt2, dep=stmt1}
    end
    for k
      <>t3 = k  {id=stmt3, dep=stmt2}
    end
  `,
  );
  throwsLoom(
    () => mapDomain(partly, '[n, m] -> {[i, j] -> [i_new, j_new]: i_new = i + j and j_new = 2 + i }'),
    /instructions must be within all or none of them/,
  );
  assert.equal(within(mapDomain(partly, '[n, m] -> {[i] -> [i_new]: i_new = i + 2 }'), 'stmt0'), ['i_new']);
  throwsLoom(() => mapDomain(partly, '{ [i] [q] }'), /expected a map/);
});

for (const device of testDevices()) {
  test(`${device.name}: test_diamond_tiling`, async () => {
    const ref = makeKernel(
      '[nx,nt] -> {[ix, it]: 1<=ix<nx-1 and 0<=it<nt}',
      `
      u[ix, it+2] = (2*u[ix, it+1] + dt**2/dx**2 * (u[ix+1, it+1] - 2*u[ix, it+1] + u[ix-1, it+1]) - u[ix, it])
    `,
    );
    let knl = mapDomain(
      ref,
      '[nx,nt] -> {[ix, it] -> [tx, tt, tparity, itt, itx]: 16*(tx - tt) + itx - itt = ix - it and 16*(tx + tt + tparity) + itt + itx = ix + it and 0<=tparity<2 and 0 <= itx - itt < 16 and 0 <= itt+itx < 16}',
    );
    knl = addDtypes(prioritizeLoops(knl, 'tt,tparity,tx,itt,itx'), { u: 'float32', dt: 'float32', dx: 'float32' });
    // small integers and dt = dx = 1 keep every value an exact float32
    const [nx, nt] = [43, 60];
    const u = Float32Array.from({ length: nx * (nt + 2) }, (_, k) =>
      k < 2 * nx && k % (nt + 2) < 2 ? ((k * 7) % 5) - 2 : 0,
    );
    for (let x = 0; x < nx; x++) for (let t = 0; t < 2; t++) u[x * (nt + 2) + t] = ((x * 7 + t) % 5) - 2;
    const expected = u.slice();
    const at = (x: number, t: number) => x * (nt + 2) + t;
    for (let t = 0; t < nt; t++) {
      for (let x = 1; x < nx - 1; x++) {
        expected[at(x, t + 2)] =
          2 * expected[at(x, t + 1)] +
          (expected[at(x + 1, t + 1)] - 2 * expected[at(x, t + 1)] + expected[at(x - 1, t + 1)]) -
          expected[at(x, t)];
      }
    }
    const result = await run(knl, device, { u: u.slice(), nx, nt, dx: 1, dt: 1 });
    assertClose(result.u as Float32Array, expected, 'u', 0, 0);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: test_affine_map_inames`, async () => {
    const knl = makeKernel(
      '{[e, i,j,n]: 0<=e<E and 0<=i,j,n<N}',
      'rhsQ[e, n+i, j] = rhsQ[e, n+i, j] - D[i, n]*x[i,j]',
      [f32('rhsQ', ['E', '2*N - 1', 'N']), f32('D', ['N', 'N']), f32('x', ['N', 'N']), '...'],
    );
    const mapped = mapDomain(knl, '{[i,n] -> [i0,n0]: i0 = n+i and n0=n}');
    const affine = affineMapInames(knl, 'i, n', 'i0, n0', ['i0 = n + i', 'n0 = n']);
    assert.ok(sameSet(mapped.domains[0], affine.domains[0]));
    const [E, N] = [2, 5];
    const rhs = randomFloat32(E * (2 * N - 1) * N, 1);
    const D = randomFloat32(N * N, 2);
    const x = randomFloat32(N * N, 3);
    const expected = rhs.slice();
    // the loops in the mapped order (i0 outside n0); each element is updated once per (i, n) with i + n fixed
    for (let e = 0; e < E; e++)
      for (let j = 0; j < N; j++)
        for (let i0 = 0; i0 <= 2 * N - 2; i0++)
          for (let n = Math.max(0, i0 - N + 1); n <= Math.min(i0, N - 1); n++) {
            const k = (e * (2 * N - 1) + i0) * N + j;
            expected[k] = Math.fround(expected[k] - Math.fround(D[(i0 - n) * N + n] * x[(i0 - n) * N + j]));
          }
    for (const [what, k] of [
      ['mapDomain', mapped],
      ['affineMapInames', affine],
    ] as const) {
      const result = await run(prioritizeLoops(k, 'e, j, i0, n0'), device, { rhsQ: rhs.slice(), D, x, E, N });
      assertClose(result.rhsQ as Float32Array, expected, what, 0, 0);
    }
  });
}

for (const device of testDevices()) {
  test(`${device.name}: test_rename_inames, test_rename_inames_existing_ok, test_rename_inames_redn`, async () => {
    const knl = makeKernel('{[i1, i2, i3]: 0<=i1, i2, i3<10}', 'y1[i1] = 2\ny2[i2] = 3\ny3[i3] = 4', [
      globalArg('y1', { dtype: 'int32' }),
      globalArg('y2', { dtype: 'int32' }),
      globalArg('y3', { dtype: 'int32' }),
    ]);
    const fused = renameInames(knl, ['i1', 'i2'], 'ifused');
    assert.equal(fused.inames.sort(), ['i3', 'ifused']);
    const merged = renameInames(knl, ['i1', 'i2'], 'i3', { existingOk: true });
    assert.equal(merged.inames, ['i3']);
    throwsLoom(() => renameInames(knl, ['i1', 'i2'], 'i3'), /'i3' is already an iname; pass \{ existingOk: true \}/);
    for (const k of [fused, merged]) {
      const r = await run(k, device, {});
      assert.equal(
        [...(r.y1 as Int32Array), ...(r.y2 as Int32Array), ...(r.y3 as Int32Array)],
        [...Array(10).fill(2), ...Array(10).fill(3), ...Array(10).fill(4)],
      );
    }
    const redn = makeKernel('{[i, j0, j1]: 0<=i, j0, j1<10}', 'y0[i] = sum(j0, sum([j1], 2*A[i, j0, j1]))', [
      f32('A', [10, 10, 10]),
      f32('y0', [10]),
    ]);
    const renamed = renameIname(redn, 'j1', 'ifused');
    assert.ok(!renamed.inames.includes('j1') && renamed.inames.includes('ifused'));
    const A = range(1000, (k) => (k % 7) - 3);
    const r = await run(renamed, device, { A });
    assertClose(
      r.y0 as Float32Array,
      range(10, (i) => {
        let s = 0;
        for (let k = 0; k < 100; k++) s += 2 * A[100 * i + k];
        return s;
      }),
      'y0',
      0,
      0,
    );
  });
}

test('renameInames within some instructions keeps the others on the old loop; nested inames are refused', () => {
  const knl = makeKernel('{[i, j]: 0<=i,j<10}', 'a[i] = 1 {id=w1}\nb[i] = 2 {id=w2}\nc[i, j] = 3 {id=w3}');
  const renamed = renameIname(knl, 'i', 'k', { within: 'id:w2' });
  assert.equal(within(renamed, 'w1'), ['i']);
  assert.equal(within(renamed, 'w2'), ['k']);
  throwsLoom(() => renameInames(knl, ['i', 'j'], 'ij'), /instruction 'w3' runs in 'i' and 'j'/);
});

for (const device of testDevices()) {
  test(`${device.name}: test_redn_iname_unique_preserves_metadata, test_reduction.py::test_double_sum_made_unique`, async () => {
    let knl = makeKernel('{[i]: 0<=i<10}', 'out = sum(i, 2*i) + sum(i, 3*i) {id=w_out}', [
      globalArg('out', { dtype: 'int32', shape: [] }),
    ]);
    knl = makeReductionInamesUnique(tagInames(knl, { i: 'unr' }));
    assert.ok(knl.inames.includes('i_0'));
    assert.is(knl.inameTags.get('i_0')?.kind, 'unroll');
    assert.equal([...((await run(knl, device, {})).out as Int32Array)], [5 * 45]);

    const n = 20;
    const double = makeReductionInamesUnique(
      makeKernel(
        '{[i,j]: 0<=i,j<n }',
        ['a = sum((i,j), i*j)', 'b = sum(i, sum(j, i*j))'],
        [globalArg('a', { dtype: 'int32', shape: [] }), globalArg('b', { dtype: 'int32', shape: [] }), '...'],
        { assumptions: 'n>=1' },
      ),
    );
    assert.match(stringifyKernel(double), 'b = sum(i_0, sum(j_0, i_0*j_0))');
    const ref = ((n * (n - 1)) / 2) ** 2;
    const r = await run(double, device, { n });
    assert.equal([(r.a as Int32Array)[0], (r.b as Int32Array)[0]], [ref, ref]);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: test_reduction.py::test_split_reduction`, async () => {
    const knl = makeKernel('{[i,j,k]: 0<=i,j,k<n}', 'b = sum((i,j,k), a[i,j,k])', [
      f32('a', ['n', 'n', 'n']),
      f32('b', []),
      '...',
    ]);
    const outward = splitReductionOutward(knl, 'j,k');
    assert.match(stringifyKernel(outward), 'b = sum((j, k), sum(i, a[i, j, k]))');
    const inward = splitReductionInward(knl, 'i');
    assert.match(stringifyKernel(inward), 'b = sum((j, k), sum(i, a[i, j, k]))');
    assert.match(stringifyKernel(splitReductionInward(knl, ['j', 'k'])), 'b = sum(i, sum((j, k), a[i, j, k]))');
    throwsLoom(() => splitReductionInward(knl, 'q'), /unknown iname 'q'/);
    throwsLoom(
      () => splitReductionInward(makeKernel('{[i]: 0<=i<4}', 'b = sum(i, a[i])', [f32('a', [4]), f32('b', [])]), 'i'),
      /no reduction over 'i' and other inames/,
    );
    const n = 6;
    const a = range(n ** 3, (k) => (k % 11) - 5);
    for (const k of [outward, inward])
      assertClose((await run(k, device, { a, n })).b as Float32Array, [a.reduce((s, x) => s + x, 0)], 'b', 0, 0);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: test_add_inames_for_unused_hw_axes`, async () => {
    let knl = makeKernel(
      '[n] -> {[i,j]: 0<=i,j<n}',
      `
      <float32> alpha = 2.0 {id=init_alpha}
      for i
        for j
          c[i, j] = alpha*a[i]*b[j] {id=outerproduct}
        end
      end
    `,
      [f32('a', ['n']), f32('b', ['n']), f32('c', ['n', 'n']), valueArg('n', 'int32')],
      { name: 'rank_one', assumptions: 'n >= 16' },
    );
    knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = splitIname(knl, 'j', 16, { outerTag: 'g.1', innerTag: 'l.1' });
    knl = addPrefetch(addPrefetch(knl, 'a'), 'b');
    knl = addInamesForUnusedHwAxes(knl);
    for (const id of ['init_alpha', 'a_fetch_rule', 'b_fetch_rule'])
      assert.equal(within(knl, id), ['i_inner', 'i_outer', 'j_inner', 'j_outer']);
    const n = 40;
    const a = randomFloat32(n, 1);
    const b = randomFloat32(n, 2);
    const { c } = await run(knl, device, { a, b, n });
    assertClose(
      c as Float32Array,
      range(n * n, (k) => Math.fround(2 * a[Math.floor(k / n)]) * b[k % n]),
      'c',
      0,
      0,
    );
  });
}

test('addInamesForUnusedHwAxes: an axis several inames run on is ambiguous', () => {
  let knl = makeKernel('{[i, j]: 0<=i,j<16}', 'a[i] = 1 {id=w1}\nb[j] = 2 {id=w2}\n<> t = 3 {id=w3}');
  knl = tagInames(knl, { i: 'l.0', j: 'l.0' });
  throwsLoom(
    () => addInamesForUnusedHwAxes(knl),
    /instruction 'w3' lacks axis l\.0, which several inames run on \(i, j\)/,
  );
});

test('test_tag_iname_with_match_pattern', () => {
  const knl = tagInames(makeKernel('{[i0, i1]: 0<=i0, i1<n}', 'x[i0] = 2.0\ny[i1] = 2.0'), 'i*:unr');
  assert.is(knl.inameTags.get('i0')?.kind, 'unroll');
  assert.is(knl.inameTags.get('i1')?.kind, 'unroll');
  throwsLoom(() => tagInames(knl, { 'q*': 'unr' }), /no iname matches 'q\*'/);
  assert.equal([...tagInames(knl, { q: 'unr' }, { ignoreNonexistent: true }).inameTags], [...knl.inameTags]);
});

test('test_remove_inames_from_insn', () => {
  let knl = makeKernel(
    '{[i, j]: 0<=i<10 and 0<=j<20}',
    `
    for i
      <> a[j] = 1       {id=a}
      b[i] = a[2*i]  {dep=a}
    end
  `,
    [globalArg('b', { dtype: 'int32' }), '...'],
  );
  knl = splitIname(knl, 'i', 2, { innerTag: 'l.0' });
  knl = splitIname(knl, 'j', 2, { innerTag: 'l.0' });
  knl = removeInamesFromInsn(knl, ['i_inner'], 'id:a');
  assert.equal(within(knl, 'a'), ['i_outer', 'j_inner', 'j_outer']);
  assert.ok(generateCode(knl, openclTarget()).code.length > 0);
  throwsLoom(() => removeInamesFromInsn(knl, ['i_inner'], 'id:a'), /runs in none of 'i_inner'/);
  throwsLoom(() => removeInamesFromInsn(knl, ['j_inner'], 'id:a'), /uses 'j_inner'; it cannot leave that loop/);
});

test('test_loopy.py::test_unschedulable_kernel_detection', () => {
  const knl = makeKernel(
    ['{[i,j]:0<=i,j<n}'],
    `
    mat1[i,j] = mat1[i,j] + 1 {inames=i:j, id=i1}
    mat2[j] = mat2[j] + 1 {inames=j, id=i2}
    mat3[i] = mat3[i] + 1 {inames=i, id=i3}
  `,
  );
  assert.not.ok(hasSchedulableInameNesting(knl));
  const options = getInameDuplicationOptions(knl);
  assert.is(options.length, 4);
  for (const { iname, within } of options)
    assert.ok(hasSchedulableInameNesting(duplicateInames(knl, iname, { within })), `${iname} within ${within}`);

  const five = makeKernel(
    ['{[i,j,k,l,m]:0<=i,j,k,l,m<n}'],
    `
    mat1[l,m,i,j,k] = mat1[l,m,i,j,k] + 1 {inames=i:j:k:l:m}
    mat2[l,m,j,k] = mat2[l,m,j,k] + 1 {inames=j:k:l:m}
    mat3[l,m,k] = mat3[l,m,k] + 11 {inames=k:l:m}
    mat4[l,m,i] = mat4[l,m,i] + 1 {inames=i:l:m}
  `,
  );
  assert.not.ok(hasSchedulableInameNesting(five));
  assert.is(getInameDuplicationOptions(five).length, 10);
});

for (const device of testDevices()) {
  test(`${device.name}: test_duplicate_iname_not_read_only_nested`, async () => {
    const knl = makeKernel(
      '{[i, j]: 0<=i,j<10}',
      `
      for i
        <> acc = 0 {id=init, tags=foo}
        for j
          acc = acc + A[i, j] * x[i, j] {id=update, tags=foo}
        end
        y[i] = acc {id=assign, tags=foo}
      end
    `,
      [f32('A', [10, 10]), f32('x', [10, 10]), f32('y', [10]), '...'],
      { seqDependencies: true },
    );
    const dup = duplicateInames(knl, 'i', { within: 'tag:foo', newInames: 'irow' });
    assert.equal(within(dup, 'init'), ['irow']);
    const A = randomFloat32(100, 1);
    const x = randomFloat32(100, 2);
    const expected = range(10, (i) => {
      let acc = 0;
      for (let j = 0; j < 10; j++) acc = Math.fround(acc + Math.fround(A[10 * i + j] * x[10 * i + j]));
      return acc;
    });
    assertClose((await run(dup, device, { A, x })).y as Float32Array, expected, 'y', 0, 0);
  });

  test(`${device.name}: test_loopy.py::test_split_and_join_inames, joins of tagged and of some instructions`, async () => {
    const knl = makeKernel('{[i]: 0<=i<16}', 'y[i] = i', [globalArg('y', { dtype: 'int32' })]);
    const joined = joinInames(splitIname(knl, 'i', 4), ['i_inner', 'i_outer']);
    assert.equal(
      [...((await run(joined, device, {})).y as Int32Array)],
      Array.from({ length: 16 }, (_, i) => i),
    );

    const two = makeKernel('{[i,j]: 0<=i<4 and 0<=j<8}', 'a[i,j] = i {id=w1}\nb[i,j] = j {id=w2}', [
      globalArg('a', { dtype: 'int32' }),
      globalArg('b', { dtype: 'int32' }),
    ]);
    const some = joinInames(two, ['i', 'j'], 'ij', { within: 'id:w2', tag: 'l.0' });
    assert.equal(within(some, 'w1'), ['i', 'j']);
    assert.equal(within(some, 'w2'), ['ij']);
    const unrolled = joinInames(tagInames(two, { i: 'unr', j: 'unr' }), ['i', 'j']);
    assert.is(unrolled.inameTags.get('i_and_j')?.kind, 'unroll');
    for (const k of [some, unrolled]) {
      const r = await run(k, device, {});
      assert.equal(
        [...(r.a as Int32Array)],
        Array.from({ length: 32 }, (_, k) => Math.floor(k / 8)),
      );
      assert.equal(
        [...(r.b as Int32Array)],
        Array.from({ length: 32 }, (_, k) => k % 8),
      );
    }
    throwsLoom(
      () => joinInames(tagInames(two, { i: 'unr', j: 'ilp' }), ['i', 'j']),
      /'i' is tagged 'unr' and 'j' 'ilp\.unr'/,
    );
    throwsLoom(
      () => joinInames(tagInames(two, { i: 'l.1', j: 'l.0' }), ['i', 'j']),
      /loops on hardware axes become one loop only with its tag given/,
    );
  });
}

test('removeUnusedInames drops loops no instruction uses, keeps the ones that bound used loops', () => {
  const knl = makeKernel(['{[i, j]: 0<=i<10 and 0<=j<3}', '{[k]: 0<=k<i}'], 'y[i] = 2 {id=w}\nz[k] = 1 {inames=i:k}');
  const removed = removeUnusedInames(knl);
  assert.equal(removed.inames.sort(), ['i', 'k']);
  assert.equal(removeUnusedInames(knl, 'i').inames.sort(), ['i', 'j', 'k']);
  throwsLoom(() => removeUnusedInames(knl, 'q'), /unknown iname 'q'/);
});

test.run();
