/**
 * Ports of Reikna's tests/test_algorithms/test_scan.py, on every test device against plain
 * JS (cumulative sums of int32 where Reikna takes int64: WGSL has no 64-bit integers; small
 * values keep every sum exact). Reikna's correctness shapes, inclusive and exclusive, with
 * half the largest work-group, then several and non-innermost axes and a custom predicate;
 * and a 10^6-element scan, which takes three levels of block offsets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { predicate, predicateMax, predicateSum, scan, type Predicate } from '@loom/computation';
import { packStructs, structLayout, unpackStructs } from '@loom/core';
import { supportsDType, testDevices } from '../../support/devices.ts';
import {
  addStructures,
  structureType,
  structureValues,
  zeroStructure,
  type Structure,
} from '../../support/structure-type.ts';
import { scanRef, sizeOf, testIntegers, transposeRef } from '../../support/ndarray.ts';

/** ref_scan: the axes made innermost (in their order), flattened, scanned, and put back. */
function refScan(
  a: ArrayLike<number>,
  shape: readonly number[],
  axes: readonly number[] | undefined,
  exclusive: boolean,
  op = (x: number, y: number) => x + y,
  empty = 0,
): number[] {
  if (!axes) return scanRef(a, [sizeOf(shape)], 0, op, empty, exclusive);
  const kept = shape.map((_, k) => k).filter((k) => !axes.includes(k));
  const perm = [...kept, ...axes];
  const moved = transposeRef(a, shape, perm);
  const rows = sizeOf(kept.map((k) => shape[k]));
  const scanned = scanRef(moved, [rows, sizeOf(axes.map((k) => shape[k]))], 1, op, empty, exclusive);
  const inverse = perm.map((_, k) => perm.indexOf(k));
  return transposeRef(
    scanned,
    perm.map((k) => shape[k]),
    inverse,
  );
}

async function checkScan(
  shape: readonly number[],
  axes?: readonly number[],
  options: { exclusive?: boolean; predicate?: Predicate; workGroupSize?: number } = {},
): Promise<void> {
  const exclusive = options.exclusive ?? false;
  const a = testIntegers(Int32Array, sizeOf(shape), sizeOf(shape) + 1);
  const expected = refScan(a, shape, axes, exclusive);
  const comp = scan({ dtype: 'int32', shape }, options.predicate ?? predicateSum('int32'), {
    axes,
    exclusive,
    workGroupSize: options.workGroupSize,
  });
  for (const device of testDevices()) {
    const { output } = await (await comp.compile(device))(undefined, a);
    assert.equal([...(output as Int32Array)], expected, device.name);
  }
}

// Reikna's largest, 512*512*4 + 5, is left to the 10^6-element test below (each size compiles its own kernels)
for (const shape of [[15], [511], [512], [513], [512 * 512 + 1]]) {
  for (const exclusive of [false, true]) {
    test(`test_scan.py::test_scan_correctness[${shape[0]}-${exclusive ? 'exclusive' : 'inclusive'}]`, async () => {
      // Reikna takes half the device's largest work-group; 128 on every device here
      await checkScan(shape, undefined, { exclusive, workGroupSize: 128 });
    });
  }
}

test('test_scan.py::test_scan_multiple_axes', async () => {
  await checkScan([10, 20, 30, 40], [2, 3]);
});

test('test_scan.py::test_scan_non_innermost_axes', async () => {
  await checkScan([10, 20, 30, 40], [1, 2]);
});

test('test_scan.py::test_scan_custom_predicate', async () => {
  await checkScan([10, 20, 30, 40], [1, 2], { predicate: predicate('a + b', 0) });
});

test('a 10^6-element scan, and a running maximum over axis 0 (any associative operation)', async () => {
  await checkScan([1_000_000]);
  const shape = [3001, 3];
  const a = Float32Array.from(testIntegers(Int32Array, sizeOf(shape), 7), (x, k) => x + (k % 5) * 0.5);
  const comp = scan({ dtype: 'float32', shape }, predicateMax('float32'), { axes: [0] });
  const expected = scanRef(a, shape, 0, Math.max, -Infinity, false);
  for (const device of testDevices()) {
    const { output } = await (await comp.compile(device))(undefined, a);
    assert.equal([...(output as Float32Array)], expected, device.name);
  }
});

// Reikna's struct (uint32, a nested uint64, uint32) where the device has uint64, and its 32-bit twin
// everywhere, scanned over axis 0 by the fieldwise sum Reikna's predicate writes out
// Reikna's performance test of large scans (int64, every axis, 2^20 to 2^26 elements) as a
// correctness test of one smaller size that still takes block offsets: int64 where the device
// has it (BigInt64Array), int32 on WebGPU
for (const exclusive of [true, false]) {
  test(`test_scan.py::test_large_scan_performance[${exclusive ? 'exclusive' : 'inclusive'}]`, async () => {
    const shape = [3 * 65536 + 7];
    const small = testIntegers(Int32Array, sizeOf(shape), 13);
    const expected = refScan(small, shape, undefined, exclusive);
    for (const device of testDevices()) {
      const wide = supportsDType(device, 'int64');
      const dtype = wide ? 'int64' : 'int32';
      const input = wide ? BigInt64Array.from(small, (x) => BigInt(x)) : small;
      const comp = scan({ dtype, shape }, predicateSum(dtype), { exclusive });
      const { output } = await (await comp.compile(device))(undefined, input);
      assert.equal([...(output as BigInt64Array | Int32Array)].map(Number), expected, `${device.name}, ${dtype}`);
    }
  });
}

// Reikna's performance test of many small scans (complex64, 500x2x2 rows of 256, seq_size 1 to 8) as
// a correctness test of 5x2x2 rows: each element count per work-item (perItem) and both kinds
for (const exclusive of [true, false]) {
  test(`test_scan.py::test_small_scan_performance[${exclusive ? 'exclusive' : 'inclusive'}]`, async () => {
    const shape = [5, 2, 2, 256];
    const n = sizeOf(shape);
    // interleaved parts, small integers: every sum exact
    const parts = Float32Array.from(testIntegers(Int32Array, 2 * n, 19));
    const rows = n / 256;
    const expected = new Array<number>(2 * n);
    for (let r = 0; r < rows; r++)
      for (const part of [0, 1]) {
        let running = 0;
        for (let k = 0; k < 256; k++) {
          const at = 2 * (r * 256 + k) + part;
          const next = running + parts[at];
          expected[at] = exclusive ? running : next;
          running = next;
        }
      }
    for (const perItem of [1, 2, 4, 8]) {
      const comp = scan({ dtype: 'complex64', shape }, predicateSum('complex64'), { axes: [3], exclusive, perItem });
      for (const device of testDevices()) {
        const { output } = await (await comp.compile(device))(undefined, parts);
        assert.equal([...(output as Float32Array)], expected, `${device.name}, seq_size ${perItem}`);
      }
    }
  });
}

for (const exclusive of [true, false]) {
  test(`test_scan.py::test_scan_structure_type[${exclusive ? 'exclusive' : 'inclusive'}]`, async () => {
    const shape = [100, 100];
    for (const wide of [true, false]) {
      const dtype = structureType(wide);
      const layout = structLayout(dtype);
      const a = structureValues(100 * 100, wide, wide ? 5 : 6);
      const expected: Structure[] = new Array(a.length);
      for (let j = 0; j < 100; j++) {
        let running = zeroStructure(wide);
        for (let i = 0; i < 100; i++) {
          const next = addStructures(running, a[i * 100 + j], wide);
          expected[i * 100 + j] = exclusive ? running : next;
          running = next;
        }
      }
      const comp = scan({ dtype, shape }, predicateSum(), { axes: [0], exclusive });
      for (const device of testDevices()) {
        if (wide && !supportsDType(device, 'uint64')) continue;
        const { output } = await (await comp.compile(device))(undefined, packStructs(layout, a));
        assert.equal(unpackStructs(layout, output as Uint8Array), expected, `${device.name}, ${dtype.name}`);
      }
    }
  });
}

test.run();
