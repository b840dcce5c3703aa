/**
 * Ports of Reikna's tests/test_linalg/test_matrixmul.py (test_shapes, test_transposed) and
 * test_norm.py (test_all_axes, test_some_axes), on every test device against plain JS;
 * Reikna's sizes, fewer of their combinations (each shape compiles its own kernels), and the
 * matrix product with a scaling and a cast fused in, which stays one kernel.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cast, matrixMul, mulConst } from '@loom/computation';
import { assertClose, randomFloat32, testDevices } from '../../support/devices.ts';
import { sizeOf } from '../../support/ndarray.ts';

/** numpy.matmul with broadcast batches, in float64. */
function matmulRef(
  a: ArrayLike<number>,
  aShape: readonly number[],
  b: ArrayLike<number>,
  bShape: readonly number[],
  ta = false,
  tb = false,
): number[] {
  const [m, k] = ta ? [aShape.at(-1)!, aShape.at(-2)!] : [aShape.at(-2)!, aShape.at(-1)!];
  const n = tb ? bShape.at(-2)! : bShape.at(-1)!;
  const ba = sizeOf(aShape.slice(0, -2));
  const bb = sizeOf(bShape.slice(0, -2));
  const batch = Math.max(ba, bb);
  const out: number[] = [];
  for (let t = 0; t < batch; t++) {
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let q = 0; q < k; q++)
          s +=
            a[(ba > 1 ? t : 0) * m * k + (ta ? q * m + i : i * k + q)] *
            b[(bb > 1 ? t : 0) * k * n + (tb ? j * k + q : q * n + j)];
        out.push(s);
      }
    }
  }
  return out;
}

async function check(aShape: readonly number[], bShape: readonly number[], ta = false, tb = false): Promise<void> {
  const a = randomFloat32(sizeOf(aShape), sizeOf(aShape));
  const b = randomFloat32(sizeOf(bShape), sizeOf(bShape) + 1);
  const expected = matmulRef(a, aShape, b, bShape, ta, tb);
  const k = ta ? aShape.at(-2)! : aShape.at(-1)!;
  const comp = matrixMul(
    { dtype: 'float32', shape: aShape },
    { dtype: 'float32', shape: bShape },
    { transposedA: ta, transposedB: tb },
  );
  for (const device of testDevices()) {
    const { output } = await (await comp.compile(device))(undefined, a, b);
    assertClose(output as Float32Array, expected, device.name, 1e-5, 1e-6 * k);
  }
}

const SIZES: readonly (readonly [number, number, number])[] = [
  [15, 17, 3],
  [122, 5, 1000],
  [45, 99, 40],
  [56, 78, 44],
];
const BATCHES: readonly (readonly [readonly number[], readonly number[]])[] = [
  [[], []],
  [[], [14]],
  [[35], []],
  [[12], [12]],
];

for (const [aBatch, bBatch] of BATCHES) {
  for (const [aSize, bSize, conv] of [SIZES[0], SIZES[2]]) {
    test(`test_matrixmul.py::test_shapes[(${aBatch}),(${bBatch})-(${aSize}, ${bSize}, ${conv})]`, async () => {
      await check([...aBatch, aSize, conv], [...bBatch, conv, bSize]);
    });
  }
}
test('test_matrixmul.py::test_shapes[(),()-(122, 5, 1000)]', async () => {
  await check([122, 1000], [1000, 5]);
});

for (const ta of [false, true]) {
  for (const tb of [false, true]) {
    test(`test_matrixmul.py::test_transposed[(56, 78, 44)-${ta ? 'A.T' : 'A'}-${tb ? 'B.T' : 'B'}]`, async () => {
      const [aSize, bSize, conv] = SIZES[3];
      await check(ta ? [conv, aSize] : [aSize, conv], tb ? [bSize, conv] : [conv, bSize], ta, tb);
    });
  }
}

test('a matrix product with a scaling on its output and a cast on one input is one kernel, and matches plain JS', async () => {
  const [m, k, n] = [130, 70, 90];
  const comp = matrixMul({ dtype: 'float32', shape: [m, k] }, { dtype: 'float32', shape: [k, n] })
    .attach('output', mulConst({ dtype: 'float32' }, 0.5), 'input', { output: 'scaled' })
    .attach('matrix_a', cast({ dtype: 'int32' }, 'float32'), 'output', { input: 'a_int' });
  const a = Int32Array.from({ length: m * k }, (_, x) => ((x * 7) % 13) - 6);
  const b = randomFloat32(k * n, 2);
  const expected = matmulRef(a, [m, k], b, [k, n]).map((x) => x * 0.5);
  for (const device of testDevices()) {
    const compiled = await comp.compile(device);
    assert.is(compiled.kernels.length, 1, 'one kernel');
    assert.is(compiled.code().length, 1);
    const { scaled } = await compiled(undefined, a, b);
    assertClose(scaled as Float32Array, expected, device.name, 1e-5, 1e-4);
  }
});

test.run();
