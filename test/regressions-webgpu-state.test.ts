/**
 * State a device keeps between launches must belong to what was launched. One pointwise
 * `add` called in place with changing layouts compiles a program per layout, each with a
 * kernel named `add` but its own uniform struct; WebGPU once keyed its kept uniform buffer
 * by the kernel's name and binding sizes, and the last call below wrote 48 bytes into the
 * 32-byte buffer of an earlier variant. Each call alone worked. Run on every device,
 * against plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError } from '@loom/core';
import { pointwise, tensor, type Tensor } from '@loom/elementwise';
import { testDevices } from './support/devices.ts';

const add = pointwise(
  { isTensor: [true, true, false], dtypes: [null, null, 'float'], promotionMethods: [[0, 1, 'DEFAULT']], name: 'add' },
  (x: number, y: number, alpha: number) => x + y * alpha,
);

const range = (n: number, scale = 1) => Float32Array.from({ length: n }, (_, k) => k * scale);
const valuesOf = async (t: Tensor) => Array.from((await t.toArray()) as Float32Array);

async function rejectedForOverlap(call: () => Promise<unknown>, what: string): Promise<void> {
  try {
    await call();
  } catch (e) {
    assert.instance(e, LoomError, what);
    assert.match((e as Error).message, /some elements of the input tensor/, what);
    return;
  }
  assert.unreachable(`${what} must be refused: its input overlaps the tensor it writes`);
}

for (const device of testDevices()) {
  test(`${device.name}: one pointwise op in place through changing layouts`, async () => {
    // A += A on a 4x4 tensor
    const A = tensor(range(16), [4, 4], { device });
    await add(A, A, 1, { out0: A });
    const a = Array.from(range(16), (v) => v + v);

    // A.T += B: A[j, i] += B[i, j]
    const B = tensor(range(16, 100), [4, 4], { device });
    const AT = A.transpose(0, 1);
    await add(AT, B, 1, { out0: AT });
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) a[4 * j + i] += 100 * (4 * i + j);
    assert.equal(await valuesOf(A), a, 'A after A += A and A.T += B');

    // three calls whose input overlaps the output otherwise than element for element
    await rejectedForOverlap(() => add(A, AT, 1, { out0: A }), 'A += A.T');
    await rejectedForOverlap(() => add(AT, A, 1, { out0: A }), 'A = A.T + A');
    await rejectedForOverlap(() => add(B, A.flip(0), 1, { out0: A }), 'A = B + A.flip(0)');
    assert.equal(await valuesOf(A), a, 'A unchanged by the refused calls');

    // G[:4] += G[4:]
    const G = tensor(range(8), [8], { device });
    await add(G.slice(0, 0, 4), G.slice(0, 4, 8), 1, { out0: G.slice(0, 0, 4) });
    assert.equal(await valuesOf(G), [0 + 4, 1 + 5, 2 + 6, 3 + 7, 4, 5, 6, 7], 'G after G[:4] += G[4:]');

    // H[::2] += 10*H[1::2]: the call that once reused an earlier variant's uniform buffer
    const H = tensor(range(8), [8], { device });
    const even = H.slice(0, 0, null, 2);
    await add(even, H.slice(0, 1, null, 2), 10, { out0: even });
    assert.equal(
      await valuesOf(H),
      Array.from(range(8), (v, k) => (k % 2 === 0 ? v + 10 * (v + 1) : v)),
      'H after H[::2] += 10*H[1::2]',
    );
  });
}

test.run();
