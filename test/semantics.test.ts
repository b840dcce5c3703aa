/**
 * One meaning for arithmetic on every device: each row of the semantics table
 * (`support/semantics-table.ts`, the README's table) runs as a kernel over the edge operands
 * of each of its dtypes — every pair of them — on every device that holds the dtype,
 * and every element must be the table's defined value (bit for bit: -0 is not 0, NaN
 * is NaN), except for the few rows with a tolerance for inexact functions.
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeKernel, run, targetFacts, type Device, type DType } from '@loom/core';
import { pointwise, tensor } from '@loom/elementwise';
import {
  EDGES,
  markdownTable,
  PAYLOAD_CASES,
  ROWS,
  type PayloadCase,
  type SemanticsRow,
  type Value,
} from './support/semantics-table.ts';
import { supportsDType, testDevices } from './support/devices.ts';

type HostArray = Int32Array | Uint32Array | BigInt64Array | Float32Array | Float64Array;

const ARRAYS: Partial<Record<DType, (values: Value[]) => HostArray>> = {
  int32: (v) => Int32Array.from(v, Number),
  uint32: (v) => Uint32Array.from(v, Number),
  int64: (v) => BigInt64Array.from(v, (x) => BigInt(x)),
  float32: (v) => Float32Array.from(v, Number),
  float64: (v) => Float64Array.from(v, Number),
};

/** Whether `actual` is the defined value: the same bits for floats (NaN matches NaN), within `tolerance` where given. */
function matches(actual: Value, expected: Value, tolerance = 0): boolean {
  if (typeof expected === 'bigint') return BigInt(actual) === expected;
  const x = Number(actual);
  if (Object.is(x, expected)) return true;
  return (
    tolerance > 0 &&
    Number.isFinite(expected) &&
    expected !== 0 &&
    Math.abs(x - expected) <= tolerance * Math.abs(expected)
  );
}

const show = (x: Value) => (Object.is(x, -0) ? '-0' : typeof x === 'bigint' ? `${x}n` : String(x));

/** Runs `row` in `dtype` on `device`; returns one line per element that is not the defined value. */
async function mismatches(row: SemanticsRow, dtype: DType, device: Device): Promise<string[]> {
  const values = [...(row.operands?.[dtype] ?? EDGES[dtype]!)];
  const binary = /\bb\b/.test(row.operation);
  const pairs = binary ? values.flatMap((x) => values.map((y) => [x, y] as const)) : values.map((x) => [x, x] as const);
  // the operands as the device holds them (1e30 as float32's nearest)
  const a = ARRAYS[dtype]!(pairs.map(([x]) => x));
  const b = ARRAYS[dtype]!(pairs.map(([, y]) => y));
  const body = row.operation.replace(/\ba\b/g, 'a[i]').replace(/\bb\b/g, 'b[i]');
  const knl = makeKernel('{ [i]: 0<=i<n }', `out[i] = ${body}`);
  const { out } = await run(knl, device, binary ? { a, b } : { a });
  const result = out as unknown as ArrayLike<Value>;
  const wrong: string[] = [];
  for (let k = 0; k < pairs.length; k++) {
    const expected = row.expected(a[k], b[k], dtype);
    if (
      !matches(
        result[k],
        expected,
        targetFacts(device.target).relaxedFloatAccuracy ? (row.relaxedTolerance ?? row.tolerance) : row.tolerance,
      )
    ) {
      const operands = binary ? `a=${show(a[k])}, b=${show(b[k])}` : `a=${show(a[k])}`;
      wrong.push(`${operands}: ${show(result[k])}, defined ${show(expected)}`);
    }
  }
  return wrong;
}

for (const row of ROWS) {
  test(`${row.operation} (${row.dtypeClass}): ${row.result}`, async () => {
    const failures: string[] = [];
    let ran = 0;
    for (const device of testDevices()) {
      for (const dtype of row.dtypes) {
        if (!supportsDType(device, dtype) || (row.resultDType && !supportsDType(device, row.resultDType))) continue;
        ran++;
        const wrong = await mismatches(row, dtype, device);
        if (wrong.length)
          failures.push(`${device.name} ${dtype} (${wrong.length} wrong): ${wrong.slice(0, 6).join('; ')}`);
      }
    }
    assert.ok(ran > 0, 'ran on at least one device');
    assert.ok(failures.length === 0, `\n${failures.join('\n')}`);
  });
}

/** Runs payload case `c` in `dtype` on `device`; returns one line per element that is not JavaScript's value. */
async function payloadMismatches(c: PayloadCase, dtype: 'float32' | 'float64', device: Device): Promise<string[]> {
  const pairs = c.xs.flatMap((x) => c.ys.map((y) => [x, y] as const));
  const round = dtype === 'float32' ? Math.fround : (v: number) => v;
  const xs = pairs.map(([x]) => round(x));
  const ys = pairs.map(([, y]) => round(y));
  const op = pointwise({}, c.payload);
  const inputs = [tensor(xs, undefined, { device, dtype }), tensor(ys, undefined, { device, dtype })].slice(
    0,
    c.payload.length,
  );
  const result = await op(...inputs);
  const values = Array.from((await result.toArray()) as ArrayLike<number | bigint>, Number);
  const wrong: string[] = [];
  // WGSL lets float32 subnormals flush to zero (NVIDIA's Vulkan driver does): there, the value
  // JavaScript gives for the flushed operands is the defined one too
  const flushes = targetFacts(device.target).flushesSubnormals.has(dtype);
  const smallestNormal = dtype === 'float32' ? 2 ** -126 : 2 ** -1022;
  const flush = (v: number) => (v !== 0 && Math.abs(v) < smallestNormal ? (v < 0 ? -0 : 0) : v);
  xs.forEach((x, k) => {
    const expected = round(Number(c.payload(x, ys[k])));
    const flushed = flush(round(Number(c.payload(flush(x), flush(ys[k])))));
    if (matches(values[k], expected, c.tolerance) || (flushes && matches(values[k], flushed, c.tolerance))) return;
    wrong.push(`x=${show(x)}, y=${show(ys[k])}: ${show(values[k])}, JavaScript ${show(expected)}`);
  });
  return wrong;
}

for (const c of PAYLOAD_CASES) {
  test(`pointwise payloads: ${c.what}`, async () => {
    const failures: string[] = [];
    let ran = 0;
    for (const device of testDevices()) {
      for (const dtype of ['float32', 'float64'] as const) {
        if (!supportsDType(device, dtype)) continue;
        ran++;
        const wrong = await payloadMismatches(c, dtype, device);
        if (wrong.length)
          failures.push(`${device.name} ${dtype} (${wrong.length} wrong): ${wrong.slice(0, 6).join('; ')}`);
      }
    }
    assert.ok(ran > 0, 'ran on at least one device');
    assert.ok(failures.length === 0, `\n${failures.join('\n')}`);
  });
}

test('the README shows the table this test checks', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  assert.ok(readme.includes(markdownTable()), `README.md should contain:\n${markdownTable()}`);
});

test.run();
