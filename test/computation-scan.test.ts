/**
 * `scan` beyond Reikna's tests (test/peers/reikna/test_scan.py.test.ts): its blocks staged in
 * local memory, whole (no bounds guards) or with a partial last block, over one and several
 * levels of block offsets; an associative operation that does not commute (the order of every
 * combination is kept); every choice of axes; the local memory a block takes. Each result is
 * compared with plain JS on every test device.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError, generateCode, printExpr } from '@loom/core';
import type { Target } from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import {
  predicate,
  predicateSum,
  scan,
  type DeviceParameters,
  type Predicate,
  type ScanOptions,
} from '@loom/computation';
import { finishCall, flatten } from '../packages/computation/src/computation/flatten.ts';
import { H200_OPENCL, H200_WGSL, h200WgslTarget } from './support/h200-parameters.ts';
import { supportsDType, testDevices } from './support/devices.ts';
import { scanRef, sizeOf, testIntegers, transposeRef } from './support/ndarray.ts';

/** The last non-zero value so far: associative, with 0 as its empty value, and not commutative. */
const lastNonZero = predicate('if(b != 0, b, a)', 0);
const lastNonZeroRef = (a: number, b: number) => (b !== 0 ? b : a);

/** Mostly zeros, so that the last non-zero value is carried across work-items and blocks. */
function sparseIntegers(n: number, seed: number): Int32Array {
  const dense = testIntegers(Int32Array, n, seed);
  return dense.map((x, k) => (((k * 2654435761) >>> 0) % 97 === 0 ? x || 5 : 0));
}

/** The axes made innermost (in their order), flattened, scanned, and put back. */
function refScan(
  a: ArrayLike<number>,
  shape: readonly number[],
  axes: readonly number[],
  exclusive: boolean,
  op: (x: number, y: number) => number,
  empty: number,
): number[] {
  const kept = shape.map((_, k) => k).filter((k) => !axes.includes(k));
  const perm = [...kept, ...axes];
  const moved = transposeRef(a, shape, perm);
  const scanned = scanRef(
    moved,
    [sizeOf(kept.map((k) => shape[k])), sizeOf(axes.map((k) => shape[k]))],
    1,
    op,
    empty,
    exclusive,
  );
  return transposeRef(
    scanned,
    perm.map((k) => shape[k]),
    perm.map((_, k) => perm.indexOf(k)),
  );
}

interface Check {
  readonly shape: readonly number[];
  readonly axes?: readonly number[];
  readonly options?: Omit<ScanOptions, 'axes'>;
  readonly predicate?: Predicate;
  readonly op?: (x: number, y: number) => number;
  readonly data?: Int32Array;
}

async function checkScan(c: Check): Promise<void> {
  const axes = c.axes ?? c.shape.map((_, k) => k);
  const exclusive = c.options?.exclusive ?? false;
  const a = c.data ?? testIntegers(Int32Array, sizeOf(c.shape), sizeOf(c.shape) + 3);
  const expected = refScan(a, c.shape, axes, exclusive, c.op ?? ((x, y) => x + y), 0);
  const comp = scan({ dtype: 'int32', shape: c.shape }, c.predicate ?? predicateSum('int32'), {
    ...c.options,
    axes: c.axes,
  });
  for (const device of testDevices()) {
    const { output } = await (await comp.compile(device))(undefined, a);
    assert.equal(
      [...(output as Int32Array)],
      expected,
      `${device.name}: shape (${c.shape}), axes (${axes})${exclusive ? ', exclusive' : ''}`,
    );
  }
}

// blocks of 32 x 3 = 96: whole blocks (no guards), a partial last one; blocks in turn (up to 8), in parallel, with one and two levels of offsets
for (const n of [1, 95, 96, 97, 96 * 8, 96 * 8 + 1, 96 * 96, 96 * 96 * 12 - 5]) {
  test(`blocks of 32 x 3, ${n} elements: inclusive and exclusive`, async () => {
    for (const exclusive of [false, true])
      await checkScan({ shape: [n], options: { exclusive, workGroupSize: 32, perItem: 3 } });
  });
}

test('many rows: one work-group per row, its blocks in turn', async () => {
  await checkScan({ shape: [1024, 300], axes: [1], options: { workGroupSize: 32, perItem: 1 } });
  await checkScan({ shape: [1100, 3, 37], axes: [2, 1], options: { exclusive: true } });
});

test('the default blocks: whole (2 x 3840) and partial, along rows', async () => {
  await checkScan({ shape: [2 * 3840] });
  await checkScan({ shape: [3, 2 * 3840 + 7], axes: [1], options: { exclusive: true } });
});

test('an associative operation that does not commute (the last non-zero value) keeps its order: within work-items, across work-items and blocks', async () => {
  for (const [n, options] of [
    [1000, { workGroupSize: 32, perItem: 3 }],
    [100_000, { workGroupSize: 32, perItem: 3 }],
    [100_000, {}],
  ] as const) {
    for (const exclusive of [false, true]) {
      await checkScan({
        shape: [n],
        options: { ...options, exclusive },
        predicate: lastNonZero,
        op: lastNonZeroRef,
        data: sparseIntegers(n, n),
      });
    }
  }
  await checkScan({
    shape: [40, 30, 7],
    axes: [0, 2],
    predicate: lastNonZero,
    op: lastNonZeroRef,
    data: sparseIntegers(40 * 30 * 7, 11),
  });
});

test('every choice of axes, in any order', async () => {
  const shape = [5, 6, 7];
  for (const axes of [[0], [1], [2], [1, 0], [0, 2], [2, 1], [2, 0, 1]]) await checkScan({ shape, axes });
});

test('the block pass loads and stores coalesced: work-item l at c*W + l of its block', async () => {
  const device = testDevices().find((d) => d.target.name === 'opencl');
  if (!device) return;
  const compiled = await scan({ dtype: 'float32', shape: [1 << 20] }, predicateSum('float32'), {
    workGroupSize: 256,
    perItem: 15,
  }).compile(device);
  const block = compiled.kernels.at(-1)!;
  assert.is(block.name, 'scan_block');
  const code = generateCode(block, openclTarget()).code;
  assert.match(
    code,
    /tile\[c \* 256 \+ lid\(0\)\] = gid\(0\) \* 3840 \+ c \* 256 \+ lid\(0\) < 1048576 \? inp\[gid\(0\) \* 3840 \+ c \* 256 \+ lid\(0\)\]/,
  );
  assert.match(code, /out\[gid\(0\) \* 3840 \+ k \* 256 \+ lid\(0\)\] = tile\[k \* 256 \+ lid\(0\)\]/);
  assert.match(code, /x = tile\[lid\(0\) \* 15 \+ e\]/);
});

test("where a target's compilers keep constant loops (WGSL), a work-item's loops are unrolled and its elements kept in registers", () => {
  const comp = scan({ dtype: 'float32', shape: [1 << 20] }, predicateSum('float32'));
  const wgsl = h200WgslTarget();
  const code = (params: DeviceParameters, target: Target) =>
    flatten(comp, params).map((c) => generateCode(finishCall(c, 'test').kernel, target).code);
  const unrolled = code(H200_WGSL, wgsl).at(-1)!;
  assert.match(unrolled, 'fn scan_block');
  assert.not.match(unrolled, /for \(/, 'no loop over the elements');
  assert.match(unrolled, 'var xs: array<f32, 21>;');
  assert.match(unrolled, 'x = xs[20i];');
  // more elements than registers keep (41 a work-item): loops, the elements in the tile
  const many = flatten(
    scan({ dtype: 'float32', shape: [1 << 20] }, predicateSum('float32'), { perItem: 41 }),
    H200_WGSL,
  )
    .map((c) => generateCode(finishCall(c, 'test').kernel, wgsl).code)
    .at(-1)!;
  assert.match(many, 'for (var e: i32 = 0i; e <= 40i; e++)');
  assert.not.match(many, 'var xs');
  // where the compilers unroll them, Loom leaves the loops to them, and the elements in the tile
  const looped = code(H200_OPENCL, openclTarget()).at(-1)!;
  assert.match(looped, /for \(int e = 0; e <= 20; \+\+e\)/);
  assert.match(looped, /x = tile\[lid\(0\) \* 21 \+ e\]/);
});

test('the totals pass of a commutative predicate combines its loads unstaged; of another, through the tile in order', async () => {
  const device = testDevices()[0];
  for (const [p, staged] of [
    [predicateSum('float32'), false],
    [lastNonZero, true],
  ] as const) {
    const compiled = await scan({ dtype: 'float32', shape: [1 << 20] }, p, { workGroupSize: 256, perItem: 15 }).compile(
      device,
    );
    const totals = compiled.kernels.find((k) => k.name === 'scan_totals')!;
    assert.is(totals.temporaries.has('tile'), staged, p.operation);
  }
});

test('a block fits the local memory: fewer elements per work-item where it is short, and a LoomError for a block asked too large', async () => {
  // float64 blocks of 256 x 21 (the default) take 47104 bytes, more than the 32 KiB of the CPU
  // device and lavapipe: 13 per work-item is the most that fits (30720 bytes)
  const shape = [10_000];
  const a = Float64Array.from(testIntegers(Int32Array, shape[0], 5));
  const expected = scanRef(a, shape, 0, (x, y) => x + y, 0, false);
  const comp = scan({ dtype: 'float64', shape }, predicateSum('float64'));
  for (const device of testDevices()) {
    if (!supportsDType(device, 'float64')) {
      console.log(`  ${device.name}: no float64, skipped`);
      continue;
    }
    const compiled = await comp.compile(device);
    const { output } = await compiled(undefined, a);
    assert.equal([...(output as Float64Array)], expected, device.name);
    const tile = compiled.kernels.at(-1)!.temporaries.get('tile')!;
    if (device.limits.maxLocalMemoryBytes === 32768)
      assert.equal(tile.shape.map(printExpr), [String(256 * 13)], `${device.name}: 256 x 13`);
  }
  // a tile of 256 x perItem float32 one KiB past the local memory
  const device = testDevices()[0];
  const perItem = device.limits.maxLocalMemoryBytes / 1024 + 1;
  const tooLarge = scan({ dtype: 'float32', shape: [1 << 20] }, predicateSum('float32'), {
    perItem,
    workGroupSize: 256,
  });
  try {
    await tooLarge.compile(device);
    assert.unreachable('compiled');
  } catch (e) {
    assert.instance(e, LoomError);
    const bytes = 4 * (256 * perItem + 2 * 256);
    assert.is(
      (e as Error).message,
      `scan: a block of 256 work-items x ${perItem} elements takes ${bytes} bytes of local memory, more than the device's ${device.limits.maxLocalMemoryBytes}; choose a smaller perItem or workGroupSize`,
    );
  }
});

test.run();
