/**
 * DSL kernels on every device present, checked against plain JavaScript: literal and
 * template kernels, declared arguments, transformation chains, data on the device.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceArray } from '@loom/core';
import { domain, f32, i32, insn, kernel } from '@loom/dsl';
import { assertClose, randomFloat32, testDevices } from './support/devices.ts';

const SIZES = [1, 7, 64, 257];

const double = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]').args({ a: f32('n'), out: f32.out('n') });

const width = 3;
const average = kernel(
  domain`{ [i, k]: 0<=i<n and 0<=k<${width} }`,
  insn`
    <float32> s = sum(k, a[i + k])    # a window of ${width}
    out[i] = s / ${width}
  `,
  { name: 'dsl_run_moving_average' },
);

const matmul = kernel('{ [i,j,k]: 0<=i<n and 0<=j<m and 0<=k<l }', 'c[i, j] = sum(k, a[i, k]*b[k, j])', {
  assumptions: 'n >= 1 and m >= 1 and l >= 1',
  args: { a: f32('n', 'l'), b: f32('l', 'm'), c: f32.out('n', 'm') },
})
  .tile('i', 'j', 16, 16, { outer: 'g', inner: 'l' })
  .split('k', 16)
  .prefetch('a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' })
  .prefetch('b', ['j_inner', 'k_inner'], { defaultTag: 'l.auto' })
  .prioritize('k_outer,k_inner');

const rotate = kernel(
  '[n] -> {[i] : 0<=i<n}',
  `
  for i
    <>tmp = arr[i] {id=maketmp,dep=*}
    ... gbarrier {id=bar,dep=*maketmp}
    arr[(i + 1) % n] = tmp {id=rotate,dep=*bar}
  end
  `,
  { assumptions: 'n mod 16 = 0', args: { arr: i32.inout('n') } },
)
  .split('i', 16, { outer: 'g.0', inner: 'l.0' })
  .saveReload();

for (const device of testDevices()) {
  test(`${device.name}: out = 2*a, as written and split over work-groups`, async () => {
    const parallel = double.split('i', 32, { outer: 'g.0', inner: 'l.0' });
    for (const n of SIZES) {
      const a = randomFloat32(n, n);
      const expected = Array.from(a, (x) => Math.fround(2 * x));
      const { out } = await double.run(device, { a });
      assert.instance(out, Float32Array);
      assert.equal(Array.from(out), expected, `n=${n}`);
      assert.equal(Array.from((await parallel.run(device, { a })).out), expected, `split, n=${n}`);
    }
  });

  test(`${device.name}: a template kernel with interpolated numbers and a temporary`, async () => {
    for (const n of [1, 5, 40]) {
      const a = randomFloat32(n + width - 1, n);
      const { out } = await average.run(device, { a });
      const expected = Array.from({ length: n }, (_, i) => {
        let s = 0;
        for (let k = 0; k < width; k++) s = Math.fround(s + a[i + k]);
        return Math.fround(s / width);
      });
      assertClose(out as Float32Array, expected, `n=${n}`, 1e-6, 0);
    }
  });

  test(`${device.name}: the tiled matrix product with prefetching`, async () => {
    for (const [n, m, l] of [
      [32, 48, 16],
      [17, 5, 33],
    ]) {
      const a = randomFloat32(n * l, 1);
      const b = randomFloat32(l * m, 2);
      const { c } = await matmul.run(device, { a, b, n, m, l });
      const expected = new Float32Array(n * m);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < m; j++) {
          let s = 0;
          for (let k = 0; k < l; k++) s = Math.fround(s + Math.fround(a[i * l + k] * b[k * m + j]));
          expected[i * m + j] = s;
        }
      }
      // fused multiply-adds may round differently
      assertClose(c, expected, `${n}x${m}x${l}`, 1e-5, 1e-6);
    }
  });

  test(`${device.name}: rotation across a global barrier, in place`, async () => {
    const arr = Int32Array.from({ length: 32 }, (_, k) => 3 * k);
    const { arr: result } = await rotate.run(device, { arr });
    assert.is(result, arr);
    assert.equal(
      Array.from(arr),
      Array.from({ length: 32 }, (_, k) => 3 * ((k + 31) % 32)),
    );
  });

  test(`${device.name}: fixed sizes, and data that stays on the device`, async () => {
    const fixed = double.fix({ n: 16 }).split('i', 4, { inner: 'unr' }).prioritize('i_outer,i_inner');
    const a = randomFloat32(16, 3);
    const onDevice = await DeviceArray.from(device, a, 'float32');
    const target = await DeviceArray.from(device, new Float32Array(16), 'float32');
    const { out } = await fixed.run(device, { a: onDevice, out: target });
    assert.is(out, target);
    assert.equal(
      Array.from((await out.toHost()) as Float32Array),
      Array.from(a, (x) => Math.fround(2 * x)),
    );
    onDevice.release();
    target.release();
  });
}

test.run();
