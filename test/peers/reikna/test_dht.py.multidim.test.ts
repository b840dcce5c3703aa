/**
 * Ports of Reikna's tests/test_dht.py::test_first_order_errors over its shapes of two and three
 * axes (test_dht.py.test.ts has the rest), on every test device: the forward transform of a
 * function made of known modes gives back their coefficients, its inverse the samples
 * (test/support/dht.ts).
 */
import { test } from 'uvu';
import { checkErrorsFirstOrder } from '../../support/dht.ts';

for (const [s, mshape] of [
  [3, 7],
  [10, 11],
  [5, 6, 7],
  [10, 11, 12],
].entries()) {
  for (const batch of [1, 10]) {
    for (const addPoints of ['0', '1', '1,2,...'] as const) {
      test(`test_dht.py::test_first_order_errors[${addPoints}-${batch}-(${mshape.join(', ')})]`, () =>
        checkErrorsFirstOrder(mshape, batch, addPoints, 1000 + 31 * s + batch));
    }
  }
}

test.run();
