/**
 * The DSL's `einsum` (loopy's `make_einsum` as a typed builder) on every device present,
 * against plain JavaScript; the same kernel as core's `makeEinsum`, and its errors. The
 * compile-time checks are in types/einsum.ts; loopy's own tests in peers/test_einsum.py.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError, makeEinsum } from '@loom/core';
import { einsum, f32 } from '@loom/dsl';
import { assertClose, randomFloat32, testDevices } from './support/devices.ts';

const [n, l, m] = [3, 4, 5];
const a = randomFloat32(n * l, 7);
const b = randomFloat32(l * m, 8);
const product = Array.from({ length: n * m }, (_, k) => {
  const [i, j] = [Math.floor(k / m), k % m];
  let s = 0;
  for (let q = 0; q < l; q++) s += a[i * l + q] * b[q * m + j];
  return s;
});

for (const device of testDevices()) {
  test(`${device.name}: einsum('ik,kj->ij') is a matrix product, as written, declared and transformed`, async () => {
    const matmul = einsum('ik,kj->ij', ['a', 'b']);
    const { out } = await matmul.run(device, { a, b, Ni: n, Nk: l, Nj: m });
    assertClose(out as ArrayLike<number>, product, 'einsum', 1e-5, 1e-5);
    const declared = matmul
      .args({ a: f32('Ni', 'Nk'), b: f32('Nk', 'Nj'), out: f32.out('Ni', 'Nj') })
      .split('i', 2, { outer: 'g.0', inner: 'l.0' });
    const typed = await declared.run(device, { a, b, Ni: n, Nk: l, Nj: m });
    assert.instance(typed.out, Float32Array);
    assertClose(typed.out, product, 'declared, split', 1e-5, 1e-5);
  });

  test(`${device.name}: einsum with a scalar operand and a sum over every index`, async () => {
    const x = randomFloat32(6, 9);
    const scaled = await einsum('i,->i', ['x', 's'])
      .args({ x: f32('Ni'), s: f32.value(), out: f32.out('Ni') })
      .run(device, {
        x,
        s: 0.5,
      });
    assert.equal(
      Array.from(scaled.out),
      Array.from(x, (v) => Math.fround(0.5 * v)),
    );
    const total = await einsum('ij->', ['a'])
      .args({ a: f32('Ni', 'Nj'), out: f32.out() })
      .run(device, { a, Ni: n, Nj: l });
    assertClose(total.out, [a.reduce((s, v) => s + v, 0)], 'sum of all', 1e-5, 1e-5);
  });
}

test("einsum builds makeEinsum's kernel, and refuses what makeEinsum refuses", () => {
  assert.is(einsum('ik,kj->ij', ['a', 'b']).kernel.toString(), makeEinsum('ik,kj->ij', ['a', 'b']).toString());
  assert.is(einsum('ij,j->i', ['a', 'x'], { name: 'matvec' }).kernel.name, 'matvec');
  assert.throws(
    () => einsum('ik,k1->i', ['a', 'b']),
    (e: unknown) => e instanceof LoomError && /a subscript index is one letter/.test(e.message) && /\^/.test(e.message),
  );
  assert.throws(() => einsum('ij,jk', ['a', 'b']), /has no '->'/);
  assert.throws(() => einsum('ij->i', ['out']), /taken by the output/);
  assert.throws(() => einsum('ij,j->i', ['a'] as never), /2 operand subscripts but 1 argument name/);
});

test.run();
