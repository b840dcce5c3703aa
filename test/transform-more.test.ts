/**
 * More transformations, as examples of use: renameIname, joinInames, fixParameters,
 * setTemporaryAddressSpace, addNosync and tagArrayAxes (data axis tags c, f, N0-N9,
 * stride:EXPR, sep, vec, `?`). For each: what it does to the kernel (its printed view,
 * its domains), why it refuses when it cannot apply, and — for the ones that must not
 * change results — the transformed kernel run on every device against plain JS.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  addNosync,
  arrayLayout,
  formatDimTags,
  generateCode,
  globalArg,
  joinInames,
  LoomError,
  makeKernel,
  parseExpression,
  printExpr,
  requiredLength,
  renameIname,
  run,
  setTemporaryAddressSpace,
  splitIname,
  stridesOf,
  tagArrayAxes,
  tagInames,
  fixParameters,
  type LoopKernel,
} from '@loom/core';
import { waivesBarrier } from '../packages/core/src/kernel/dependencies.ts';
import { openclTarget } from '@loom/codegen-opencl';
import { assertClose, randomFloat32, testDevices } from './support/devices.ts';

/** `fn` throws a LoomError whose message matches `why`. */
function refuses(fn: () => unknown, why: RegExp): void {
  try {
    fn();
  } catch (e) {
    assert.instance(e, LoomError);
    assert.match((e as Error).message, why);
    return;
  }
  assert.unreachable(`expected a LoomError matching ${why}`);
}

const domains = (knl: LoopKernel) => knl.domains.map((d) => d.toString());
const insnText = (knl: LoopKernel) => knl.toString().split('INSTRUCTIONS:\n')[1];
const openclCode = (knl: LoopKernel, dtypes: Record<string, 'float32'>) =>
  generateCode(addDtypes(knl, dtypes), openclTarget()).code;

// ---- renameIname ------------------------------------------------------------------

test('renameIname: the iname changes name in domains, loops, indices, reductions and tags', () => {
  let knl = makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i] = sum(j, a[i, j]) * i');
  knl = tagInames(splitIname(knl, 'j', 4), { j_inner: 'unr' });
  const renamed = renameIname(renameIname(knl, 'i', 'row'), 'j_inner', 'lane');
  assert.equal(renamed.inames, ['row', 'j_outer', 'lane']);
  assert.match(insnText(renamed), 'for row\n  out[row] = sum((j_outer, lane), a[row, 4*j_outer + lane])*row');
  assert.match(renamed.toString(), /INAME TAGS:\nj_outer: None\nlane: unr\nrow: None/);
  assert.match(domains(renamed)[0], /0 <= row < n/);
});

test('renameIname: a domain nested in the renamed iname follows it', () => {
  const knl = makeKernel(['{ [i]: 0<=i<n }', '{ [j]: 0<=j<=i }'], 'out[i, j] = a[i, j]');
  assert.equal(domains(renameIname(knl, 'i', 'row')), [
    '[n] -> { [row] : 0 <= row < n }',
    '[row] -> { [j] : 0 <= j <= row }',
  ]);
});

test('renameIname: onto an existing iname only with existingOk, and only over the same domain', () => {
  const knl = makeKernel('{ [i,j]: 0<=i,j<n }', ['out[i] = 2*a[i] {id=w1}', 'out2[j] = 3*a[j] {id=w2}']);
  refuses(() => renameIname(knl, 'j', 'i'), /'i' is already an iname; pass \{ existingOk: true \}/);
  const merged = renameIname(knl, 'j', 'i', { existingOk: true });
  assert.equal(merged.inames, ['i']);
  assert.equal(domains(merged), ['[n] -> { [i] : 0 <= i < n }']);
  assert.equal(merged.instruction('w2').withinInames, ['i']);

  const shorter = makeKernel('{ [i,j]: 0<=i<n and 0<=j<n-1 }', ['out[i] = 2*a[i]', 'out2[j] = 3*a[j]']);
  refuses(() => renameIname(shorter, 'j', 'i', { existingOk: true }), /do not run over the same values/);
  // a triangle: j's range depends on i, so j is not "another i"
  const triangle = makeKernel('{ [i,j,k]: 0<=i,k<n and 0<=j<=i }', [
    'out[i] = 2*a[i]',
    'out2[k] = 3*a[k]',
    'out3[j] = a[j]',
  ]);
  refuses(() => renameIname(triangle, 'j', 'k', { existingOk: true }), /do not run over the same values/);
});

test('renameIname: refuses unknown inames and names already taken', () => {
  const knl = makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i, j] = a[i, j]');
  refuses(() => renameIname(knl, 'q', 'r'), /unknown iname 'q'/);
  refuses(() => renameIname(knl, 'i', 'a'), /'a' is already an argument/);
  refuses(() => renameIname(knl, 'i', 'n'), /'n' is already a parameter/);
  refuses(() => renameIname(knl, 'i', '2x'), /renameIname: the new name: "2x" is not a name/);
  // merging two inames one instruction uses would make a[i, j] a[i, i]
  refuses(() => renameIname(knl, 'j', 'i', { existingOk: true }), /instruction 'insn' uses both 'j' and 'i'/);
});

// ---- joinInames -------------------------------------------------------------------

test('joinInames: i, j become one loop ij with i = ij // len_j, j = ij % len_j', () => {
  const knl = makeKernel('{ [i,j]: 0<=i<4 and 0<=j<5 }', 'out[i, j] = a[i, j] + 10*i + j');
  const joined = joinInames(knl, ['i', 'j'], 'ij');
  assert.equal(domains(joined), ['{ [ij] : 0 <= ij <= 19 }']);
  assert.match(insnText(joined), 'for ij\n  out[ij // 5, ij % 5] = a[ij // 5, ij % 5] + 10*(ij // 5) + ij % 5');
  // the default name, lower bounds other than 0, and the tag of the joined loop
  const shifted = makeKernel('{ [i,j]: 1<=i<=3 and 2<=j<5 }', 'out[i, j] = 1');
  const tagged = joinInames(shifted, 'i,j', undefined, { tag: 'l.0' });
  assert.equal(domains(tagged), ['{ [i_and_j] : 0 <= i_and_j <= 8 }']);
  assert.match(insnText(tagged), 'out[i_and_j // 3 + 1, i_and_j % 3 + 2] = 1');
  assert.match(tagged.toString(), 'i_and_j: l.0');
  assert.match(openclCode(tagged, {}), 'reqd_work_group_size(9, 1, 1)');
});

test('joinInames: other inames of the domain stay, reductions over the joined inames follow', () => {
  const knl = makeKernel(
    '{ [k,i,j]: 0<=k<n and 0<=i<3 and 0<=j<4 }',
    'out[k] = sum((i, j), a[k, i, j]*(i + 1)*(j + 2))',
  );
  const joined = joinInames(knl, ['i', 'j'], 'ij');
  assert.equal(domains(joined), ['[n] -> { [k, ij] : 0 <= k < n and 0 <= ij <= 11 }']);
  assert.match(insnText(joined), 'sum(ij, a[k, ij // 4, ij % 4]*(ij // 4 + 1)*(ij % 4 + 2))');
});

test('joinInames: three inames, the last moving fastest', () => {
  const knl = makeKernel('{ [i,j,k]: 0<=i<2 and 0<=j<3 and 0<=k<4 }', 'out[i, j, k] = 1');
  assert.match(insnText(joinInames(knl, ['i', 'j', 'k'], 'ijk')), 'out[ijk // 12, ijk // 4 % 3, ijk % 4] = 1');
});

test('joinInames: only constant bounds over a rectangle, used together, can be joined', () => {
  const make = (domain: string, insn = 'out[i, j] = 1') => makeKernel(domain, insn);
  refuses(
    () => joinInames(make('{ [i,j]: 0<=i<4 and 0<=j<n }'), ['i', 'j']),
    /the bounds of 'j' depend on 'n'.*constant bounds/,
  );
  refuses(() => joinInames(make('{ [i,j]: 0<=i<4 and 0<=j<=i }'), ['i', 'j']), /is tied to the iname|not a rectangle/);
  refuses(
    () => joinInames(make('{ [i,j]: 0<=i<8 and 0<=j<4 and i mod 2 = 0 }'), ['i', 'j']),
    /stride or modulus condition/,
  );
  refuses(() => joinInames(make('{ [i,j]: 0<=i<4 and 0<=j<4 and i + j <= 5 }'), ['i', 'j']), /not a rectangle/);
  const box = make('{ [i,j]: 0<=i<4 and 0<=j<5 }');
  refuses(() => joinInames(box, ['i']), /at least two inames/);
  refuses(() => joinInames(box, ['i', 'q']), /unknown iname 'q'/);
  refuses(() => joinInames(box, ['i', 'j'], 'out'), /the name 'out' is already used/);
  refuses(() => joinInames(tagInames(box, { j: 'l.0' }), ['i', 'j']), /'j' is tagged 'l.0'/);
  const partly = makeKernel('{ [i,j]: 0<=i<4 and 0<=j<5 }', [
    's[i] = 0 {id=init}',
    's[i] = s[i] + a[i, j] {id=acc, dep=init}',
  ]);
  refuses(
    () => joinInames(partly, ['i', 'j']),
    /instruction 'init' is inside 'i' but not 'j'; joining would repeat it/,
  );
  const nested = makeKernel(['{ [i,j]: 0<=i<4 and 0<=j<5 }', '{ [k]: 0<=k<=i }'], 'out[i, j, k] = 1');
  refuses(() => joinInames(nested, ['i', 'j']), /depend on 'i'/);
});

test("joinInames: the parts of a split loop join, though the split left their bounds implicit and tied to each other's", () => {
  // i = 16*i_outer + 4*i_inner_outer + i_inner_inner: 0 <= 4*i_inner_outer + i_inner_inner <= 15 bounds i_inner_outer
  let knl = makeKernel('{ [i,j]: 0<=i<64 and 0<=j<8 }', 'out[i, j] = a[i, j] + 1');
  knl = splitIname(splitIname(knl, 'i', 16, { outerTag: 'g.0' }), 'i_inner', 4);
  const joined = joinInames(knl, ['i_inner_inner', 'j'], 't', { tag: 'l.0' });
  assert.equal(domains(joined), [
    '{ [i_outer, i_inner_outer, t] : 0 <= i_outer <= 3 and 0 <= i_inner_outer <= 3 and 0 <= t <= 31 }',
  ]);
  assert.match(
    insnText(joined),
    'out[16*i_outer + (4*i_inner_outer + t // 8), t % 8] = a[16*i_outer + (4*i_inner_outer + t // 8), t % 8] + 1',
  );
  // a bound that the parts' boxes do not imply still ties them: 62 rows are no whole number of tiles
  const ragged = splitIname(makeKernel('{ [i,j]: 0<=i<62 and 0<=j<8 }', 'out[i, j] = 1'), 'i', 4);
  refuses(() => joinInames(ragged, ['i_inner', 'j']), /is tied to the iname 'i_outer'/);
});

// ---- fixParameters ----------------------------------------------------------------

test('fixParameters: the value replaces the parameter in domains, shapes and code; the argument goes', () => {
  const knl = makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i, j] = a[i, j] + i*m + j', undefined, {
    assumptions: 'n >= 1',
  });
  const fixed = fixParameters(knl, { m: 8 });
  assert.equal(
    fixed.args.map((a) => a.name),
    ['a', 'n', 'out'],
  );
  assert.equal(domains(fixed), ['[n] -> { [i, j] : 0 <= i < n and 0 <= j <= 7 }']);
  assert.match(
    fixed.toString(),
    'a: type: <auto/runtime>, shape: (n, 8), dim_tags: (N1:stride:8, N0:stride:1) in aspace: global',
  );
  assert.match(insnText(fixed), 'out[i, j] = a[i, j] + i*8 + j');
  // a constant loop can now be unrolled
  const small = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]');
  refuses(() => openclCode(tagInames(small, { i: 'unr' }), { a: 'float32' }), /cannot unroll 'i'/);
  const unrolled = openclCode(tagInames(fixParameters(small, { n: 4 }), { i: 'unr' }), { a: 'float32' });
  assert.match(unrolled, 'out[3] = 2.0f * a[3];');
  assert.not.match(unrolled, /int const n/);
});

test('fixParameters: the assumptions must allow the value; only integer parameters', () => {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    'out[i] = a[i]*alpha',
    [globalArg('a', { shape: ['n'] }), { name: 'alpha', kind: 'value', dtype: 'float32' }, '...'],
    {
      assumptions: 'n mod 16 = 0',
    },
  );
  assert.equal(fixParameters(knl, { n: 64 }).assumptions.params, []); // n = 64 satisfies them: nothing is left
  refuses(() => fixParameters(knl, { n: 100 }), /n = 100 contradicts the kernel's assumptions/);
  refuses(() => fixParameters(knl, { q: 1 }), /no parameter 'q' \(parameters: n, alpha\)/);
  refuses(() => fixParameters(knl, { n: 2.5 }), /'n' must be fixed to an integer, got 2.5/);
  refuses(() => fixParameters(knl, { alpha: 2 }), /'alpha' is a float32 value; only integer parameters/);
  refuses(() => fixParameters(knl, { i: 2 }), /'i' is an iname/);
  refuses(() => fixParameters(knl, { a: 2 }), /'a' is an array argument/);
});

// ---- setTemporaryAddressSpace -------------------------------------------------------

test('setTemporaryAddressSpace: names, lists and wildcards; unknown names are refused', () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', ['<float32> t_a = 2*a[i]', '<float32> t_b = t_a + 1', 'out[i] = t_b']);
  assert.match(knl.toString(), 't_a: type: float32, shape: () aspace: auto');
  const local = setTemporaryAddressSpace(knl, 't_a', 'local');
  assert.match(
    local.toString(),
    't_a: type: float32, shape: () aspace: local\nt_b: type: float32, shape: () aspace: auto',
  );
  const both = setTemporaryAddressSpace(knl, 't_*', 'private');
  assert.equal(
    [...both.temporaries.values()].map((t) => t.addressSpace),
    ['private', 'private'],
  );
  assert.equal(setTemporaryAddressSpace(knl, ['t_a', 't_b'], 'global').temporaries.get('t_b')!.addressSpace, 'global');
  refuses(() => setTemporaryAddressSpace(knl, 'tmp', 'local'), /no temporary matches 'tmp' \(temporaries: t_a, t_b\)/);
  refuses(() => setTemporaryAddressSpace(knl, 'out', 'local'), /'out' is an argument, not a temporary/);
  refuses(() => setTemporaryAddressSpace(knl, 't_a', 'shared' as 'local'), /unknown address space 'shared'/);
});

// ---- addNosync ----------------------------------------------------------------------

const chain = () =>
  makeKernel('{ [i]: 0<=i<n }', [
    'a[i] = 1 {id=w_1}',
    'b[i] = a[i] {id=w_2}',
    'c[i] = b[i] {id=w_3}',
    'd[i] = 0 {id=other, groups=g}',
    'e[i] = 0 {id=rival, conflicts_grp=g}',
  ]);

test('addNosync: the sink waives barriers after the source, with the scope, as loopy prints it (no_sync_with=ID@SCOPE)', () => {
  const knl = addNosync(chain(), 'local', 'w_1', 'w_2');
  assert.equal(knl.instruction('w_2').noSyncWith, ['w_1@local']);
  assert.equal(knl.instruction('w_1').noSyncWith, []);
  assert.match(knl.toString(), 'b[i] = a[i] {id=w_2, dep=w_1, no_sync_with=w_1@local}');
  // what the barrier pass asks
  assert.ok(waivesBarrier(knl.instruction('w_2'), 'w_1', 'local'));
  assert.not.ok(waivesBarrier(knl.instruction('w_2'), 'w_1', 'global'));
  const any = addNosync(chain(), 'any', 'w_1', 'w_2', { bidirectional: true });
  assert.equal(any.instruction('w_1').noSyncWith, ['w_2@any']);
  assert.ok(waivesBarrier(any.instruction('w_2'), 'w_1', 'global'));
});

test('addNosync: wildcards, dependencies through others, conflicting groups, force', () => {
  const knl = addNosync(chain(), 'global', 'w_*', 'w_3');
  assert.equal(knl.instruction('w_3').noSyncWith, ['w_1@global', 'w_2@global']); // w_3 depends on w_1 through w_2
  assert.equal(addNosync(chain(), 'local', 'other', 'rival').instruction('rival').noSyncWith, ['other@local']);
  refuses(() => addNosync(chain(), 'local', 'w_3', 'w_1'), /no sink \(w_1\) depends on a source \(w_3\).*force: true/);
  assert.equal(addNosync(chain(), 'local', 'w_3', 'w_1', { force: true }).instruction('w_1').noSyncWith, ['w_3@local']);
  assert.equal(addNosync(chain(), 'local', 'w_3', 'w_1', { emptyOk: true }).instruction('w_1').noSyncWith, []);
  refuses(() => addNosync(chain(), 'local', 'nope', 'w_1'), /the source 'nope' matches no instruction/);
  refuses(() => addNosync(chain(), 'warp' as 'local', 'w_1', 'w_2'), /unknown scope 'warp'/);
});

test('nosync=ID@SCOPE in the instruction text keeps its scope', () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', ['a[i] = 1 {id=w1}', 'b[i] = a[i] {id=w2, nosync=w1@local}']);
  assert.equal(knl.instruction('w2').noSyncWith, ['w1@local']);
  refuses(
    () => makeKernel('{ [i]: 0<=i<n }', ['a[i] = 1 {id=w1}', 'b[i] = a[i] {id=w2, nosync=w1@warp}']),
    /malformed nosync entry 'w1@warp'/,
  );
});

// ---- tagArrayAxes -------------------------------------------------------------------

const shape3 = ['3', 'm', '4'].map((s) => parseExpression(s));
const cube = () => makeKernel('{ [i,j,k]: 0<=i<3 and 0<=j<m and 0<=k<4 }', 'out[i, j, k] = 2*a[i, j, k]');
const stridesFor = (tags: string) =>
  stridesOf(shape3, tagArrayAxes(cube(), 'a', tags).arg('a')!.dimTags).map(printExpr);

test("tagArrayAxes: the reference's examples on shape (3, M, 4)", () => {
  assert.equal(stridesFor('c,c,c'), ['m*4', '4', '1']);
  assert.equal(stridesFor('f,f,f'), ['1', '3', 'm*3']);
  assert.equal(stridesFor('N1,N0,N2'), ['m', '1', '3*m']);
  assert.equal(stridesOf(shape3).map(printExpr), ['m*4', '4', '1']); // no tags: row-major
  // the kernel view prints them as loopy does
  const view = tagArrayAxes(cube(), 'a', 'f,f,f').toString();
  assert.match(
    view,
    'a: type: <auto/runtime>, shape: (3, m, 4), dim_tags: (N0:stride:1, N1:stride:3, N2:stride:m*3) in aspace: global',
  );
  assert.match(
    view,
    'out: type: <auto/runtime>, shape: (3, m, 4), dim_tags: (N2:stride:m*4, N1:stride:4, N0:stride:1) out',
  );
});

test('tagArrayAxes: stride:EXPR, optional tags; explicit levels are contiguous and not mixed (as in loopy)', () => {
  assert.equal(stridesFor('stride:1, stride:3, stride:3*m'), ['1', '3', '3*m']);
  assert.match(
    tagArrayAxes(cube(), 'a', 'stride:4*m,stride:4,stride:1').toString(),
    'dim_tags: (stride:4*m, stride:4, stride:1)',
  );
  // optional tags are dropped left first until one tag per axis remains
  assert.equal(stridesFor('c?,f?,f,f,f'), ['1', '3', 'm*3']);
  assert.equal(stridesFor('f?,c,c,c'), ['m*4', '4', '1']);
  // loopy's parse_array_dim_tags: explicit levels count from the lowest, must be
  // contiguous, and may not be mixed with c/f/stride
  assert.equal(stridesFor('N2,N1,N3'), stridesFor('N1,N0,N2'));
  for (const [tags, message] of [
    ['c,N2,c', /mixes explicit nesting levels \(N0-N9\) with 'c'/],
    ['N0,f,f', /mixes explicit nesting levels \(N0-N9\) with 'f'/],
    ['N1,N0,c', /mixes explicit nesting levels \(N0-N9\) with 'c'/],
    ['N0,stride:3,N1', /mixes explicit nesting levels \(N0-N9\) with 'stride'/],
    ['N1,N0,N5', /the nesting levels of 'a' \(N1, N0, N5\) are not contiguous/],
  ] as const) {
    assert.throws(
      () => tagArrayAxes(cube(), 'a', tags),
      (e: unknown) => e instanceof LoomError && message.test((e as Error).message),
      tags,
    );
  }
});

test('tagArrayAxes: sep and vec are stored for code generation; vec lanes are adjacent', () => {
  const vec = tagArrayAxes(cube(), 'a', 'c,c,vec');
  assert.equal(vec.arg('a')!.dimTags, [{ kind: 'nested', level: 1 }, { kind: 'nested', level: 0 }, { kind: 'vec' }]);
  // loopy's float4-based strides (M, 1) in the view, element strides (4*M, 4, 1) for indexing
  assert.match(vec.toString(), 'dim_tags: (N1:stride:m, N0:stride:1, vec)');
  assert.equal(stridesOf(shape3, vec.arg('a')!.dimTags).map(printExpr), ['4*m', '4', '1']);
  const sep = tagArrayAxes(cube(), 'a', 'sep,c,c');
  assert.equal(
    arrayLayout(shape3, sep.arg('a')!.dimTags).map((l) => (l.kind === 'stride' ? printExpr(l.stride) : l.kind)),
    ['sep', '4', '1'],
  );
  assert.match(formatDimTags(shape3, sep.arg('a')!.dimTags), 'sep, N1:stride:4, N0:stride:1');
  refuses(() => stridesOf(shape3, sep.arg('a')!.dimTags), /axis 0 is tagged 'sep'.*not support separate arrays yet/);
});

test('tagArrayAxes: refuses what does not describe a layout', () => {
  refuses(() => tagArrayAxes(cube(), 'a', 'c,c'), /'a' has 3 axes, but 2 tags were given/);
  refuses(() => tagArrayAxes(cube(), 'a', 'c,c,x'), /unknown dim tag 'x' for axis 2/);
  refuses(() => tagArrayAxes(cube(), 'a', 'c,f,c'), /mixes 'c' and 'f'/);
  refuses(() => tagArrayAxes(cube(), 'a', 'N0,N0,N1'), /two axes at nesting level N0/);
  refuses(
    () => tagArrayAxes(cube(), 'a', 'c,vec,c'),
    /axis 1 of 'a' is tagged 'vec', so its length must be a constant, not m/,
  );
  refuses(() => tagArrayAxes(cube(), 'a', 'vec,c,vec'), /at most one axis/);
  refuses(() => tagArrayAxes(cube(), 'a', 'stride:q,c,c'), /uses 'q', which is not a parameter/);
  refuses(() => tagArrayAxes(cube(), 'm', 'c'), /'m' is a value argument/);
  refuses(() => tagArrayAxes(cube(), 'b', 'c'), /no array 'b' \(arrays: a, out\)/);
});

test('tagArrayAxes: temporaries take tags too, with constant strides', () => {
  const knl = makeKernel('{ [i,j]: 0<=i<3 and 0<=j<4 }', [
    '<float32> t[i, j] = a[i, j] {id=w}',
    'out[i, j] = t[i, j] {dep=w}',
  ]);
  const tagged = tagArrayAxes(knl, 't', 'f,f');
  assert.match(tagged.toString(), 't: type: float32, shape: (3, 4), dim_tags: (N0:stride:1, N1:stride:3) aspace: auto');
  refuses(() => tagArrayAxes(knl, 't', 'stride:n,stride:1'), /not a constant/);
});

test('requiredLength: a dense layout needs its element count, padding more', () => {
  assert.is(requiredLength([3, 5, 4], [20, 4, 1]), 60);
  assert.is(requiredLength([3, 5, 4], [1, 3, 15]), 60);
  assert.is(requiredLength([3, 5], [8, 1]), 21); // rows padded to 8 elements
  assert.is(requiredLength([0, 5], [5, 1]), 0);
  refuses(() => requiredLength([3], [-1]), /negative stride/);
});

// ---- running the transformed kernels -------------------------------------------------

/** a[r][c] of an n x m matrix stored column-major, as a caller of an `f` array lays it out. */
function columnMajor(rowMajor: Float32Array, n: number, m: number): Float32Array {
  const out = new Float32Array(n * m);
  for (let r = 0; r < n; r++) for (let c = 0; c < m; c++) out[r + n * c] = rowMajor[r * m + c];
  return out;
}

/** A tile of a staged in local memory: the fetch's loops sit inside the group's loop over tiles. */
function prefetchedTiles(): LoopKernel {
  let knl = makeKernel('{ [i,j]: 0<=i<n and 0<=j<8 }', 'out[i, j] = 2*a[i, j]');
  knl = splitIname(fixParameters(knl, { n: 32 }), 'i', 4, { outerTag: 'g.0', innerTag: 'l.1' });
  knl = tagInames(knl, { j: 'l.0' });
  return addPrefetch(knl, 'a', ['i_inner', 'j'], { temporaryAddressSpace: 'local' });
}

test('joinInames: a fetch nested in group loops joins (its bounds that mention the group are implied)', () => {
  // the footprint's domain also says a_dim_0 <= 31 - 4*i_outer, which 0 <= i_outer <= 7 makes redundant
  const joined = joinInames(prefetchedTiles(), ['a_dim_0', 'a_dim_1'], 'flat');
  assert.match(insnText(joined), 'a_fetch[flat // 8, flat % 8] = a[');
});

/** out = 2*a over a 64 x 16 array, a block of 64 x 16 a group (the group loops take one value), a staged through local memory. */
function oneBlockFetch(): LoopKernel {
  let knl = makeKernel('{ [i, j]: 0 <= i < 64 and 0 <= j < 16 }', 'out[i, j] = 2*a[i, j]', [
    globalArg('a', { dtype: 'float32', shape: [64, 16] }),
    globalArg('out', { dtype: 'float32', shape: [64, 16] }),
  ]);
  knl = splitIname(knl, 'i', 64, { outerTag: 'g.0' });
  knl = splitIname(knl, 'j', 16, { outerTag: 'g.1' });
  return addPrefetch(knl, 'a', ['i_inner', 'j_inner'], {
    temporaryAddressSpace: 'local',
    fetchOuterInames: ['i_outer', 'j_outer'],
  });
}

test('joinInames: a fetch whose group loops take one value joins (its bounds by the block and by the array coincide)', () => {
  // the footprint's domain says both 16*j_outer <= a_dim_1 <= 16*j_outer + 15 and 0 <= a_dim_1 <= 15; with
  // j_outer only 0 either pair implies the other: the pair that reads j_outer goes, the box stays
  const joined = joinInames(oneBlockFetch(), ['a_dim_0', 'a_dim_1'], 'flat');
  assert.match(joined.domains.map(String).join('\n'), '0 <= flat <= 1023');
});

for (const device of testDevices()) {
  test(`${device.name}: a fetch joined where its group loops take one value stages the whole array`, async () => {
    // the 1024 elements 16 at a time over l.0, where the product runs along j
    const joined = splitIname(joinInames(oneBlockFetch(), ['a_dim_0', 'a_dim_1'], 'flat'), 'flat', 16, {
      innerTag: 'l.0',
    });
    const a = randomFloat32(64 * 16, 3);
    const { out } = await run(tagInames(joined, { j_inner: 'l.0' }), device, { a });
    assert.equal(
      Array.from(out as Float32Array),
      Array.from(a, (x) => 2 * x),
    );
  });

  test(`${device.name}: a joined fetch loop stages the same tile`, async () => {
    // the 32 elements of the tile over the 4 x 8 work-items, by a flat index
    const joined = splitIname(joinInames(prefetchedTiles(), ['a_dim_0', 'a_dim_1'], 'flat'), 'flat', 8, {
      outerTag: 'l.1',
      innerTag: 'l.0',
    });
    const a = randomFloat32(32 * 8, 5);
    const { out } = await run(joined, device, { a });
    assert.equal(
      Array.from(out as Float32Array),
      Array.from(a, (x) => 2 * x),
    );
  });

  test(`${device.name}: the parts of a split loop joined onto a work-group axis cover every point once`, async () => {
    let knl = makeKernel('{ [i,j]: 0<=i<64 and 0<=j<8 }', 'out[i, j] = a[i, j] + 1');
    knl = splitIname(splitIname(knl, 'i', 16, { outerTag: 'g.0' }), 'i_inner', 4, { outerTag: 'l.1' });
    const joined = joinInames(knl, ['i_inner_inner', 'j'], 't', { tag: 'l.0' });
    const a = randomFloat32(64 * 8, 9);
    const { out } = await run(joined, device, { a });
    assert.equal(
      Array.from(out as Float32Array),
      Array.from(a, (x) => Math.fround(x + 1)),
    );
  });

  test(`${device.name}: renamed and merged kernels compute the same`, async () => {
    const two = makeKernel('{ [i,j]: 0<=i,j<n }', ['out[i] = 2*a[i] {id=w1}', 'out2[j] = 3*a[j] {id=w2}']);
    const merged = renameIname(renameIname(two, 'j', 'i', { existingOk: true }), 'i', 'q');
    const reduction = renameIname(
      makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i] = sum(j, a[i, j] * j)'),
      'j',
      'col',
    );
    for (const n of [1, 5, 17]) {
      const a = randomFloat32(n, n);
      const { out, out2 } = await run(merged, device, { a });
      assert.equal(
        Array.from(out as Float32Array),
        Array.from(a, (x) => Math.fround(2 * x)),
        `n=${n}`,
      );
      assert.equal(
        Array.from(out2 as Float32Array),
        Array.from(a, (x) => Math.fround(3 * x)),
        `n=${n}`,
      );
      const m = 3;
      const b = randomFloat32(n * m, n + 7);
      const sums = Array.from({ length: n }, (_, i) =>
        Array.from({ length: m }, (_, j) => b[i * m + j] * j).reduce((s, x) => s + x, 0),
      );
      assertClose((await run(reduction, device, { a: b, m })).out as Float64Array, sums, `sum, n=${n}`);
    }
  });

  test(`${device.name}: joined loops compute the same (sequential, on a local axis, on a group axis)`, async () => {
    const knl = makeKernel('{ [i,j]: 0<=i<4 and 0<=j<5 }', 'out[i, j] = a[i, j] + 10*i + j');
    const a = randomFloat32(20, 4);
    // float32 data with integer indices stays float32
    const expected = Array.from(a, (x, k) => Math.fround(Math.fround(x + 10 * Math.floor(k / 5)) + (k % 5)));
    for (const tag of [undefined, 'l.0', 'g.0']) {
      const { out } = await run(joinInames(knl, ['i', 'j'], 'ij', { tag }), device, { a });
      assert.equal(Array.from(out as Float32Array), expected, `tag ${tag}`);
    }
    const reduction = makeKernel(
      '{ [k,i,j]: 0<=k<n and 0<=i<3 and 0<=j<4 }',
      'out[k] = sum((i, j), a[k, i, j]*(i + 1)*(j + 2))',
    );
    const b = randomFloat32(5 * 12, 9);
    const sums = Array.from({ length: 5 }, (_, k) => {
      let s = 0;
      for (let i = 0; i < 3; i++) for (let j = 0; j < 4; j++) s += b[k * 12 + i * 4 + j] * (i + 1) * (j + 2);
      return s;
    });
    assertClose(
      (await run(joinInames(reduction, 'i,j'), device, { a: b })).out as Float32Array,
      sums,
      'joined reduction',
      1e-5,
      1e-5,
    );
  });

  test(`${device.name}: a kernel with fixed parameters computes the same without them`, async () => {
    const knl = makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i, j] = a[i, j] + i*m + j');
    const fixed = fixParameters(knl, { m: 3, n: 5 });
    const a = randomFloat32(15, 2);
    const reference = (await run(knl, testDevices()[0], { a, m: 3 })).out as Float32Array;
    const { out } = await run(fixed, device, { a });
    assert.equal(Array.from(out as Float32Array), Array.from(reference));
    const unrolled = tagInames(fixParameters(makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]'), { n: 6 }), { i: 'unr' });
    const b = randomFloat32(6, 3);
    assert.equal(
      Array.from((await run(unrolled, device, { a: b })).out as Float32Array),
      Array.from(b, (x) => Math.fround(2 * x)),
    );
  });

  // Data axis tags change where elements live, so these need code generation to index
  // with `stridesOf` (builder.ts).
  test(`${device.name}: f-ordered arrays: the caller's data is column-major`, async () => {
    const knl = makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i, j] = 2*a[i, j] + j');
    for (const [n, m] of [
      [3, 4],
      [1, 5],
      [6, 1],
      [7, 9],
    ]) {
      const a = randomFloat32(n * m, n + m);
      const expected = Array.from(a, (x, k) => Math.fround(Math.fround(2 * x) + (k % m))); // row-major
      const input = tagArrayAxes(knl, 'a', 'f,f');
      const { out } = await run(input, device, { a: { data: columnMajor(a, n, m), shape: [n, m] } });
      assert.equal(Array.from(out as Float32Array), expected, `a in f order, ${n}x${m}`);
      const both = tagArrayAxes(input, 'out', 'f,f');
      const { out: outF } = await run(both, device, { a: { data: columnMajor(a, n, m), shape: [n, m] } });
      // out[r, c] now lives at r + n*c
      const expectedF = Array.from({ length: n * m }, (_, k) => expected[(k % n) * m + Math.floor(k / n)]);
      assert.equal(Array.from(outF as Float32Array), expectedF, `a and out in f order, ${n}x${m}`);
    }
  });

  test(`${device.name}: N1,N0,N2 and explicit strides address the layouts they describe`, async () => {
    const m = 5;
    const a = randomFloat32(3 * m * 4, 11);
    // logical element a[i, j, k] lives at j + m*i + 3*m*k (strides (m, 1, 3*m))
    const logical = (i: number, j: number, k: number) => a[i * m + j + 3 * m * k];
    const expected: number[] = [];
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < m; j++) for (let k = 0; k < 4; k++) expected.push(Math.fround(2 * logical(i, j, k)));
    for (const tags of ['N1,N0,N2', 'stride:m, stride:1, stride:3*m']) {
      const { out } = await run(tagArrayAxes(cube(), 'a', tags), device, { a: { data: a, shape: [3, m, 4] } });
      assert.equal(Array.from(out as Float32Array), expected, tags);
    }
  });
}

test.run();
