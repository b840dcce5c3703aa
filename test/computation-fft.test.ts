/**
 * `fft` beyond Reikna's own tests: complex128 on the devices with float64 (at float64's
 * accuracy) and its refusal where a device has none (WebGPU), the accuracy of the twiddles
 * for sizes 3^k and a prime, real input through a transformation (Reikna's
 * demo_real_to_complex_fft.py), and the signature. Every device, against the float64
 * reference FFT of test/support/fft-reference.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fft, transformation } from '@loom/computation';
import { supportsDType, testDevices } from './support/devices.ts';
import { assertComplexClose, referenceFft, testComplex } from './support/fft-reference.ts';
import { refused } from './support/refusals.ts';

const sizeOf = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

test('fft: the signature is Reikna’s (output, input, inverse), and the axes are checked', async () => {
  const f = fft({ dtype: 'complex64', shape: [4, 8] }, { axes: [-1] });
  assert.equal(
    f.signature.map((p) => `${p.name}:${p.role}:${p.dtype}`),
    ['output:o:complex64', 'input:i:complex64', 'inverse:s:int32'],
  );
  await refused(() => fft({ dtype: 'complex64', shape: [4, 8] }, { axes: [2] }), 'out of bounds for rank 2');
  await refused(() => fft({ dtype: 'complex64', shape: [4, 8] }, { axes: [1, -1] }), 'transformed twice');
  await refused(() => fft({ dtype: 'complex64', shape: [4] }, { axis: [0] } as never), "unknown option 'axis'");
});

test('fft: complex128 at float64 accuracy where the device has float64, refused where it has none', async () => {
  const cases: [number[], number[]][] = [
    [[3, 48], [1]],
    [[2, 17], [1]],
    [
      [6, 5, 7],
      [0, 1, 2],
    ],
  ];
  for (const device of testDevices()) {
    for (const [shape, axes] of cases) {
      const comp = fft({ dtype: 'complex128', shape }, { axes });
      if (!supportsDType(device, 'float64')) {
        await refused(() => comp.compile(device), 'complex128');
        continue;
      }
      const compiled = await comp.compile(device);
      const data = Float64Array.from(testComplex(sizeOf(shape), 11), (x) => x + 1e-9 * Math.sin(x * 1e3));
      for (const inverse of [0, 1]) {
        const { output } = await compiled(undefined, data, inverse);
        assert.instance(output, Float64Array);
        assertComplexClose(
          output as Float64Array,
          referenceFft(data, shape, axes, inverse === 1),
          `${device.name}, (${shape.join(', ')})${inverse ? ', inverse' : ''}`,
          1e-12,
          1e-10,
        );
      }
    }
  }
});

test('fft: sizes 3^7 and a prime (Bluestein) within Reikna’s float32 tolerances', async () => {
  for (const device of testDevices()) {
    for (const shape of [
      [1, 2187],
      [2, 257],
    ]) {
      const data = testComplex(sizeOf(shape), 13);
      const compiled = await fft({ dtype: 'complex64', shape }, { axes: [1] }).compile(device);
      for (const inverse of [0, 1]) {
        const { output } = await compiled(undefined, data, inverse);
        assertComplexClose(
          output as Float32Array,
          referenceFft(data, shape, [1], inverse === 1),
          `${device.name}, ${shape[1]} points${inverse ? ', inverse' : ''}`,
          2e-5,
          1e-3,
        );
      }
    }
  }
});

test('fft: real input through a transformation attached to the input (demo_real_to_complex_fft.py)', async () => {
  const n = 300;
  const toComplex = transformation({
    name: 'toComplex',
    params: [
      { name: 'output', dtype: 'complex64', shape: [n], role: 'o' },
      { name: 'input', dtype: 'float32', shape: [n], role: 'i' },
    ],
    body: 'storeSame(output, loadSame(input) + 0j)',
  });
  const real = fft({ dtype: 'complex64', shape: [n] }).attach('input', toComplex, 'output', { input: 'realInput' });
  assert.equal(
    real.signature.map((p) => `${p.name}:${p.dtype}`),
    ['output:complex64', 'realInput:float32', 'inverse:int32'],
  );
  const signal = Float32Array.from({ length: n }, (_, k) => Math.sin(0.3 * k) + 0.5 * Math.cos(1.7 * k + 0.2));
  const expected = referenceFft(
    Float64Array.from({ length: 2 * n }, (_, k) => (k % 2 ? 0 : signal[k / 2])),
    [n],
  );
  for (const device of testDevices()) {
    const { output } = await (await real.compile(device))(undefined, signal, 0);
    // Reikna's check: the relative norm of the error
    let err = 0;
    let ref = 0;
    for (let k = 0; k < expected.length; k++) {
      err += ((output as Float32Array)[k] - expected[k]) ** 2;
      ref += expected[k] ** 2;
    }
    assert.ok(Math.sqrt(err / ref) < 1e-6, `${device.name}: relative error ${Math.sqrt(err / ref)}`);
  }
});

test.run();
