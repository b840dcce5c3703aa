/**
 * autoSchedule's cost model: what it counts (L1 lines and sectors per warp, panels fetched again
 * by every work-group, reads shared by unrolled copies, registers a work-item holds) and the
 * rankings that follow, on made-up profiles; no kernel runs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  globalArg,
  makeKernel,
  predictScheduleTime,
  splitIname,
  tagInames,
  temporaryVariable,
} from '@loom/core';
import { bankConflicts, groupSectors, warpShape } from '../packages/core/src/tune/auto-schedule/warps.ts';
import {
  globalReuse,
  loadCopies,
  localReuse,
  registersPerWorkItem,
  residencySlowdown,
} from '../packages/core/src/tune/auto-schedule/work-item.ts';
import { PROFILE, cpu } from './support/auto-schedule-cases.ts';

test('the cost model ranks an uncoalesced schedule (l.0 across rows) below a coalesced one, by its L1 traffic', () => {
  const knl = addDtypes(makeKernel('{ [i,j]: 0<=i,j<n }', 'b[i, j] = 2*a[i, j]'), { a: 'float32' });
  const schedule = (along0: string, along1: string) =>
    splitIname(splitIname(knl, along0, 32, { outerTag: 'g.0', innerTag: 'l.0' }), along1, 8, {
      outerTag: 'g.1',
      innerTag: 'l.1',
    });
  const sizes = { n: 1024 };
  const good = predictScheduleTime(schedule('j', 'i'), cpu, PROFILE, sizes);
  const bad = predictScheduleTime(schedule('i', 'j'), cpu, PROFILE, sizes);
  // each warp across 32 rows touches 32 sectors; the 8 warps beside it along l.1 use the rest of
  // each, so what reaches memory is what the coalesced schedule moves, but the L1 cache serves 8x
  assert.ok(bad.l1Bytes >= 8 * good.l1Bytes, `${bad.l1Bytes} vs ${good.l1Bytes}`);
  assert.is(bad.globalBytes, good.globalBytes);
  assert.ok(bad.seconds > 1.5 * good.seconds, `${bad.seconds} vs ${good.seconds}`);
  // with l.1 along a stride too (a 32 x 1 group across rows), every sector reaches memory for one element
  const across = splitIname(knl, 'i', 32, { outerTag: 'g.0', innerTag: 'l.0' });
  const worst = predictScheduleTime(across, cpu, PROFILE, sizes);
  assert.ok(worst.globalBytes >= 8 * good.globalBytes, `${worst.globalBytes} vs ${good.globalBytes}`);
});

test('the cost model: a transpose storing across rows ranks below one loading across rows (stores write through L1, in part-filled sectors)', () => {
  const knl = addDtypes(makeKernel('{ [i,j]: 0<=i,j<n }', 'out[j, i] = a[i, j]'), { a: 'float32' });
  // l.0 along j: a's rows read whole, out written down its columns; along i: the other way round
  const schedule = (along0: string, along1: string) =>
    splitIname(splitIname(knl, along0, 8, { outerTag: 'g.0', innerTag: 'l.0' }), along1, 16, {
      outerTag: 'g.1',
      innerTag: 'l.1',
    });
  const sizes = { n: 1024 };
  const storesAcross = predictScheduleTime(schedule('j', 'i'), cpu, PROFILE, sizes);
  const loadsAcross = predictScheduleTime(schedule('i', 'j'), cpu, PROFILE, sizes);
  // the L1 cache looks loads up by 128-byte line, so loading down columns takes more of it (8 lines a
  // warp of 8 x 4, against 4); the stores' sectors are what the time turns on
  assert.is(storesAcross.l1Bytes, (1024 * 1024 * (4 * 128 + 8 * 32)) / 32);
  assert.is(loadsAcross.l1Bytes, (1024 * 1024 * (8 * 128 + 4 * 32)) / 32);
  assert.ok(
    storesAcross.storeBytes > loadsAcross.storeBytes,
    `${storesAcross.storeBytes} vs ${loadsAcross.storeBytes}`,
  );
  // ranked below it (measured 2.2x slower on the H200; the model's L1 lines for the column loads narrow its gap)
  assert.ok(storesAcross.seconds > 1.05 * loadsAcross.seconds, `${storesAcross.seconds} vs ${loadsAcross.seconds}`);
});

test('the cost model counts the panels every work-group fetches: smaller blocks of a matrix product read more', () => {
  const matmul = addDtypes(makeKernel('{ [i,j,k]: 0<=i,j,k<n }', 'c[i, j] = sum(k, a[i, k]*b[k, j])'), {
    a: 'float32',
    b: 'float32',
  });
  const blocked = (rows: number, columns: number) => {
    let knl = splitIname(matmul, 'i', rows, { outerTag: 'g.1', innerTag: 'l.1' });
    knl = splitIname(knl, 'j', columns, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = splitIname(knl, 'k', 8);
    knl = addPrefetch(knl, 'a', ['i_inner', 'k_inner'], { temporaryAddressSpace: 'local', defaultTag: 'l.auto' });
    return addPrefetch(knl, 'b', ['k_inner', 'j_inner'], { temporaryAddressSpace: 'local', defaultTag: 'l.auto' });
  };
  const sizes = { n: 256 };
  const small = predictScheduleTime(blocked(8, 8), cpu, PROFILE, sizes);
  const large = predictScheduleTime(blocked(16, 32), cpu, PROFILE, sizes);
  // each work-group reads a's rows and b's columns of its block for every step of k: n^3 (1/rows + 1/columns) floats
  const panels = (rows: number, columns: number) => 256 ** 3 * (1 / rows + 1 / columns) * 4;
  assert.ok(small.globalBytes >= panels(8, 8), `${small.globalBytes} vs ${panels(8, 8)}`);
  assert.ok(large.globalBytes < small.globalBytes / 2, `${large.globalBytes} vs ${small.globalBytes}`);
  assert.ok(large.seconds < small.seconds);
});

test('the cost model: fewer work-groups than compute units leave units idle, and a narrow group still takes a warp', () => {
  // a work-item a row of 1024: 4096 work-items in groups of 8 (512 groups) or of 512 (8 groups)
  const rows = addDtypes(makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i] = sum(j, a[i, j])'), { a: 'float32' });
  const grouped = (size: number) => splitIname(rows, 'i', size, { outerTag: 'g.0', innerTag: 'l.0' });
  const sizes = { n: 4096, m: 1024 };
  const units = { parallelism: 16384, computeUnits: 132 };
  const narrow = predictScheduleTime(grouped(8), cpu, PROFILE, sizes, units);
  const wide = predictScheduleTime(grouped(512), cpu, PROFILE, sizes, units);
  assert.ok(wide.seconds > 4 * narrow.seconds, `${wide.seconds} vs ${narrow.seconds}`);
  // where the device's units are not known, only the warps in flight tell them apart
  const unknown = (size: number) => predictScheduleTime(grouped(size), cpu, PROFILE, sizes, { parallelism: 16384 });
  assert.ok(unknown(512).seconds > unknown(8).seconds);
  assert.is(unknown(256).seconds, unknown(512).seconds);
});

test('globalReuse: unrolled copies of a stencil that read the same element load it once', () => {
  const stencil = addDtypes(
    makeKernel(
      '{ [i,j]: 1<=i<n-1 and 1<=j<n-1 }',
      'u[i, j] = a[i-1, j] + a[i+1, j] + a[i, j-1] + a[i, j+1] - 4*a[i, j]',
    ),
    { a: 'float32' },
  );
  const rows = (apart: number) => {
    const split = splitIname(stencil, 'i', 2 * apart, { outerTag: 'g.1' });
    return splitIname(split, 'i_inner', apart, { outerTag: 'unr', innerTag: 'l.1' });
  };
  // rows two apart (copies i and i+2): a[i+1, j] is read by both, 9 distinct loads of 10
  assert.equal([...globalReuse(rows(2))], [['a', 0.9]]);
  // rows one apart: a[i, j] and a[i+1, j] shared both ways, 8 of 10
  assert.equal([...globalReuse(rows(1))], [['a', 0.8]]);
  // rows eight apart: nothing shared
  assert.equal([...globalReuse(rows(8))], [['a', 1]]);
});

test('localReuse: unrolled rows of a window staged in local memory share the rows their taps overlap', () => {
  // a 1-D window of 5 taps over a staged row, each work-item 8 outputs (unrolled) `apart` apart
  const window = (apart: number) => {
    const knl = makeKernel('{ [i, t]: 0 <= i < 4096 and 0 <= t < 5 }', 'out[i] = sum(t, w[t] * a[i + t])', [
      globalArg('a', { dtype: 'float32', shape: [4100] }),
      globalArg('w', { dtype: 'float32', shape: [5] }),
      globalArg('out', { dtype: 'float32', shape: [4096] }),
    ]);
    let k = splitIname(knl, 'i', 8 * apart, { outerTag: 'g.0' });
    k = splitIname(k, 'i_inner', apart, { outerTag: 'unr', innerTag: 'l.0' });
    k = addPrefetch(k, 'a', ['i_inner_outer', 'i_inner_inner', 't'], {
      temporaryAddressSpace: 'local',
      defaultTag: 'l.auto',
    });
    return tagInames(k, { t: 'unr' });
  };
  // outputs next to each other: 8 outputs x 5 taps read 12 elements of 40
  assert.is(localReuse(window(1)).get('a_fetch'), 12 / 40);
  // 32 apart (a work-item's outputs a warp apart): no two of its 40 reads are the same element
  assert.is(localReuse(window(32)).get('a_fetch'), 1);
});

test("localReuse: a short loop of taps counts as unrolled where the target's compilers unroll it, a refilled buffer's loop does not", () => {
  // 3 taps as a loop, 8 outputs a work-item (unrolled) `apart` apart, staged in local memory
  // (`rounds`: two rounds a work-group, the panel fetched again in each)
  const taps = (apart: number, rounds = 1) => {
    const knl = makeKernel('{ [i, t]: 0 <= i < 4096 and 0 <= t < 3 }', 'out[i] = sum(t, w[t] * a[i + t])', [
      globalArg('a', { dtype: 'float32', shape: [4098] }),
      globalArg('w', { dtype: 'float32', shape: [3] }),
      globalArg('out', { dtype: 'float32', shape: [4096] }),
    ]);
    let k = splitIname(knl, 'i', 8 * apart * rounds, { outerTag: 'g.0', innerIname: 'i_in' });
    k = splitIname(k, 'i_in', 8 * apart, { outerIname: 'round', innerIname: 'i_inner' });
    k = splitIname(k, 'i_inner', apart, { outerTag: 'unr', innerTag: 'l.0' });
    return addPrefetch(k, 'a', ['i_inner_outer', 'i_inner_inner', 't'], {
      temporaryAddressSpace: 'local',
      defaultTag: 'l.auto',
      fetchOuterInames: ['i_outer', 'round'],
    });
  };
  // the loop over t is a loop to Loom: only the unrolled outputs count, and they read distinct elements
  assert.is(localReuse(taps(2)).get('a_fetch'), 1);
  // NVIDIA's and LLVM's compilers unroll it: outputs 2 apart meet (8 x 3 reads, 17 elements), 4 apart do not
  assert.is(localReuse(taps(2), true).get('a_fetch'), 17 / 24);
  assert.is(localReuse(taps(4), true).get('a_fetch'), 1);
  // a loop that refills the buffer it reads holds other values at the same places each time round:
  // its two rounds read as many distinct values as they read elements (not 17 of 48)
  assert.is(localReuse(taps(2, 2), true).get('a_fetch'), 17 / 24);
});

test('warpShape: a warp spans rows along l.1 when l.0 is narrower; transpose tiles count the sectors of their warps', () => {
  assert.equal(warpShape([256]), [32]);
  assert.equal(warpShape([8, 8]), [8, 4]);
  assert.equal(warpShape([16, 16]), [16, 2]);
  assert.equal(warpShape([4, 2, 8]), [4, 2, 4]);
  assert.equal(warpShape([64, 4]), [32, 1]);
  const knl = addDtypes(makeKernel('{ [i,j]: 0<=i,j<n }', 'b[j, i] = a[i, j]'), { a: 'float32' });
  const tile = (along0: string, along1: string, size: number) =>
    splitIname(splitIname(knl, along0, size, { outerTag: 'g.0', innerTag: 'l.0' }), along1, size, {
      outerTag: 'g.1',
      innerTag: 'l.1',
    });
  const sizes = { n: 1024 };
  const warps = (1024 * 1024) / 32;
  // l.0 along j, 8 wide: a warp reads 4 rows of 8 floats (4 lines of 128 bytes, as L1 looks them up)
  // and writes 8 rows of 4 (8 sectors, as its stores go on to L2)
  const narrow = predictScheduleTime(tile('j', 'i', 8), cpu, PROFILE, sizes);
  assert.is(narrow.l1Bytes, warps * (4 * 128 + 8 * 32));
  // l.0 along i, 16 wide: a warp reads 16 rows of 2 floats (16 lines) and writes 2 rows of 16 (4 sectors)
  const wide = predictScheduleTime(tile('i', 'j', 16), cpu, PROFILE, sizes);
  assert.is(wide.l1Bytes, warps * (16 * 128 + 4 * 32));
});

test('groupSectors: the sectors a work-group touches per access', () => {
  assert.is(groupSectors([32, 8], [1, 1024], 4), 4 * 8, 'rows of 32 floats: 4 sectors each');
  assert.is(groupSectors([32, 8], [1024, 1], 4), 32, 'columns of a transpose tile: one sector a row of 8');
  assert.is(groupSectors([32, 1], [1024, 0], 4), 32, 'one element a row');
  assert.is(groupSectors([8, 4], [1, 1024], 4, 128), 4, "in 128-byte lines (L1's): rows of 8 floats, a line each");
  assert.is(groupSectors([32, 1], [1, 0], 4, 128), 1, 'a row of 32 floats: one line');
  assert.is(groupSectors([256], [0], 4), 1, 'the same element for all');
  assert.is(groupSectors([64], [undefined], 4), 64, 'unknown strides: a sector each');
  assert.is(groupSectors([16, 16], [2, 4096], 8), 16 * 8, 'complex64 every other element: 256 bytes a row');
});

test('bankConflicts: the most distinct words a warp meets in one bank of local memory', () => {
  assert.is(bankConflicts([32], [1], 4), 1, 'consecutive floats: a bank each');
  assert.is(bankConflicts([32], [0], 4), 1, 'the same word for all: broadcast');
  assert.is(bankConflicts([32], [32], 4), 32, 'a column of a 32-wide tile: all in one bank');
  assert.is(bankConflicts([32], [33], 4), 1, 'the same column padded to 33');
  assert.is(bankConflicts([32], [21], 4), 1, "an odd stride (scan's elements a work-item)");
  assert.is(bankConflicts([32], [16], 4), 16, 'stride 16: two banks, sixteen words each');
  assert.is(bankConflicts([16, 2], [1, 64], 4), 2, 'two rows of 16, 64 apart: the same 16 banks');
  assert.is(bankConflicts([16, 2], [1, 68], 4), 2, 'two rows 68 apart overlap in 12 banks');
  assert.is(bankConflicts([16, 2], [1, 80], 4), 1, 'two rows 80 apart: the other 16 banks');
  assert.is(bankConflicts([32], [1], 8), 1, 'consecutive doubles: two words each, in two passes a warp anyway');
  assert.is(bankConflicts([32], [16], 8), 16, 'doubles 16 apart: every word in bank 0 or 1');
  assert.is(bankConflicts([32], [undefined], 4), 1, 'unknown strides: not modelled');
});

test('the cost model serves a warp whose local words meet in the same banks as many times over: a padded column reads 32x less', () => {
  const column = (stride: number) =>
    tagInames(
      makeKernel(
        '{ [g, l]: 0 <= g < 4096 and 0 <= l < 32 }',
        `t[l * ${stride}] = a[g * 32 + l] {id=put}\nb[g * 32 + l] = 2 * t[l * ${stride}] {dep=put}`,
        [
          globalArg('a', { dtype: 'float32', shape: [4096 * 32] }),
          globalArg('b', { dtype: 'float32', shape: [4096 * 32] }),
          temporaryVariable('t', { dtype: 'float32', shape: [32 * stride], addressSpace: 'local' }),
        ],
      ),
      { g: 'g.0', l: 'l.0' },
    );
  const [unpadded, padded] = [32, 33].map((s) => predictScheduleTime(column(s), cpu, PROFILE, {}));
  assert.is(unpadded!.localBytes, 32 * padded!.localBytes);
});

test("the cost model counts a register tile's panel reads once per element: larger tiles read local memory less", () => {
  const knl = addDtypes(makeKernel('{ [i,j,k]: 0<=i,j,k<n }', 'c[i, j] = sum(k, a[i, k]*b[k, j])'), {
    a: 'float32',
    b: 'float32',
  });
  // a tile of 64 x 64 over 16 x 16 work-items, each `block` x `block` outputs (ilp), k staged by 16
  const tiled = (block: number) => {
    let k = splitIname(knl, 'j', 16 * block, { outerTag: 'g.0' });
    k = splitIname(k, 'j_inner', 16, { outerTag: 'ilp', innerTag: 'l.0' });
    k = splitIname(k, 'i', 16 * block, { outerTag: 'g.1' });
    k = splitIname(k, 'i_inner', 16, { outerTag: 'ilp', innerTag: 'l.1' });
    k = splitIname(k, 'k', 16);
    k = addPrefetch(k, 'a', ['i_inner_outer', 'i_inner_inner', 'k_inner'], {
      temporaryAddressSpace: 'local',
      defaultTag: 'l.auto',
    });
    return addPrefetch(k, 'b', ['k_inner', 'j_inner_outer', 'j_inner_inner'], {
      temporaryAddressSpace: 'local',
      defaultTag: 'l.auto',
    });
  };
  const sizes = { n: 512 };
  const [one, four] = [1, 4].map((b) => predictScheduleTime(tiled(b), cpu, PROFILE, sizes));
  // 2 panel reads per multiply-add without a tile; (4 + 4) / 16 with a 4 x 4 one (plus the fetches' stores)
  assert.ok(four.localBytes < 0.4 * one.localBytes, `${four.localBytes} vs ${one.localBytes}`);
});

test('registersPerWorkItem and residencySlowdown: an 8 x 8 tile over 512 work-items fills a unit alone, over 256 it does not', () => {
  const knl = addDtypes(makeKernel('{ [i,j,k]: 0<=i,j,k<n }', 'c[i, j] = sum(k, a[i, k]*b[k, j])'), {
    a: 'float32',
    b: 'float32',
  });
  const tile = (along0: number, along1: number, block: number) => {
    let k = splitIname(knl, 'j', along0 * block, { outerTag: 'g.0' });
    k = splitIname(k, 'j_inner', along0, { outerTag: 'ilp', innerTag: 'l.0' });
    k = splitIname(k, 'i', along1 * block, { outerTag: 'g.1' });
    return splitIname(k, 'i_inner', along1, { outerTag: 'ilp', innerTag: 'l.1' });
  };
  // 64 accumulators, 8 + 8 operands, and the overhead
  const eight = registersPerWorkItem(tile(16, 16, 8));
  assert.is(eight, 64 + 16 + 24);
  assert.is(registersPerWorkItem(tile(16, 16, 1)), 1 + 24, 'no register tile: one accumulator and the overhead');
  assert.is(residencySlowdown(eight, 256, true), 1, 'two groups of 256 a unit');
  assert.is(residencySlowdown(eight, 512, true), 1.5, 'one group of 512 a unit, stalled at its barriers');
  assert.is(residencySlowdown(eight, 512, false), 1, 'no barriers: nothing to wait for together');
  assert.is(residencySlowdown(eight, 1024, true), 4, 'registers past the unit: they spill');
  // a 16 x 16 tile's 256 accumulators are more than a work-item may hold, in a group of any size
  const sixteen = registersPerWorkItem(tile(4, 4, 16));
  assert.ok(sixteen > 255, `${sixteen}`);
  assert.is(residencySlowdown(sixteen, 16, true), 4, 'past 255 registers a work-item: they spill');
});

test("the cost model waits for a work-item's loads in sequence: a row reduced by 32 work-items, 32 loads each, ranks below 64, 16 each", () => {
  // on an H200-like profile, where the bytes alone (16 MB) take 4 µs: the waits, not the traffic, tell them apart
  const h200 = { device: 'test', bandwidth: 4e12, flopRate: 6e13, launchOverhead: 1e-6 };
  const rows = addDtypes(makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i] = sum(j, a[i, j])'), { a: 'float32' });
  const tree = (width: number) =>
    splitIname(splitIname(rows, 'i', 1, { outerTag: 'g.0' }), 'j', width, { innerTag: 'l.0' });
  const sizes = { n: 4096, m: 1024 };
  const units = { computeUnits: 132 };
  const narrow = predictScheduleTime(tree(32), cpu, h200, sizes, units);
  const wide = predictScheduleTime(tree(64), cpu, h200, sizes, units);
  assert.ok(narrow.seconds > wide.seconds, `${narrow.seconds} vs ${wide.seconds}`);
  // an unrolled block's copies issue their loads together: one wait for four
  const blocked = splitIname(splitIname(rows, 'i', 64, { outerTag: 'g.0' }), 'i_inner', 16, {
    outerTag: 'unr',
    innerTag: 'l.0',
  });
  assert.equal([...loadCopies(blocked)], [['a', 4]]);
  assert.equal([...loadCopies(rows)], [['a', 1]]);
});

test("the cost model slows a work-item past the live values its target's compilers keep (WGSL's livePrivateValues)", () => {
  const knl = addDtypes(makeKernel('{ [i,j,k]: 0<=i,j,k<n }', 'c[i, j] = sum(k, a[i, k]*b[k, j])'), {
    a: 'float32',
    b: 'float32',
  });
  // 8 x 8 accumulators a work-item and 8 + 8 operands: 80 live values
  let tiled = splitIname(knl, 'j', 128, { outerTag: 'g.0' });
  tiled = splitIname(tiled, 'j_inner', 16, { outerTag: 'ilp', innerTag: 'l.0' });
  tiled = splitIname(tiled, 'i', 128, { outerTag: 'g.1' });
  tiled = splitIname(tiled, 'i_inner', 16, { outerTag: 'ilp', innerTag: 'l.1' });
  const sizes = { n: 512 };
  const free = predictScheduleTime(tiled, cpu, PROFILE, sizes, { computeUnits: 132 });
  const within = predictScheduleTime(tiled, cpu, PROFILE, sizes, { computeUnits: 132, livePrivateValues: 80 });
  const past = predictScheduleTime(tiled, cpu, PROFILE, sizes, { computeUnits: 132, livePrivateValues: 40 });
  assert.is(within.seconds, free.seconds);
  assert.ok(past.seconds > 1.5 * free.seconds, `${past.seconds} vs ${free.seconds}`);
});

test.run();
