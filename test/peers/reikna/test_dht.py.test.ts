/**
 * Ports of Reikna's tests/test_dht.py: test_first_order_errors over its one-axis shapes, and
 * test_high_order_forward (test_dht.py.multidim.test.ts has the first over two and three
 * axes), on every test device. The forward transform of a function made of known modes must
 * give back their coefficients and the inverse its samples (test/support/dht.ts); the forward
 * transform of a power of the function must not depend on how many modes the mode space has.
 */
import { test } from 'uvu';
import { dht, getSpatialGrid } from '@loom/computation';
import { testDevices } from '../../support/devices.ts';
import { assertNegligible, checkErrorsFirstOrder, FunctionHelper, generateModes } from '../../support/dht.ts';

for (const [s, mshape] of [[5], [20], [50]].entries()) {
  for (const batch of [1, 10]) {
    for (const addPoints of ['0', '1', '1,2,...'] as const) {
      test(`test_dht.py::test_first_order_errors[${addPoints}-${batch}-(${mshape.join(', ')})]`, () =>
        checkErrorsFirstOrder(mshape, batch, addPoints, 7 + 31 * s + batch));
    }
  }
}

for (const order of [2, 3]) {
  for (const n of [20, 30, 50]) {
    test(`test_dht.py::test_high_order_forward[${n}-${order}]`, async () => {
      // the same modes in a mode space of n and of n + 1 modes: the transforms agree on the first n
      const modes = generateModes([n], false, undefined, 100 * order + n);
      const f1 = new FunctionHelper([n], false, modes, order);
      const f2 = new FunctionHelper([n + 1], false, modes, order);
      const x1 = f1.values([getSpatialGrid(n, order)]);
      const x2 = f2.values([getSpatialGrid(n + 1, order)]);
      const dht1 = dht({ dtype: 'float32', shape: [n] }, { order });
      const dht2 = dht({ dtype: 'float32', shape: [n + 1] }, { order });
      for (const device of testDevices()) {
        const m1 = (await (await dht1.compile(device))(undefined, x1)).modes;
        const m2 = (await (await dht2.compile(device))(undefined, x2)).modes;
        assertNegligible(m1, m2.subarray(0, n), 1, 1e-6, device.name);
      }
    });
  }
}

test.run();
