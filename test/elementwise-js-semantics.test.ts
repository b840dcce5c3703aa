/**
 * A payload means what JavaScript means, element for element (issue 24, item 8, and its
 * compile time): literals and Math constants are weak, computed as JavaScript computes them
 * (`1 / 3` is a double) and taking the dtype of what they meet; `===` never finds a boolean
 * equal to a number, where `==` converts; and a payload whose locals double a value at each
 * step builds a kernel that grows with the payload, not with the tree it unfolds to.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pointwise, tensor } from '@loom/elementwise';
import { supportsDType, testDevices } from './support/devices.ts';
import { assertNumbers, numbers } from './support/elementwise-reference.ts';

const xs = [1.5, -2.25, 3, 0, -0.5, 2.5, 1e-3];

/** `(x) => { const v1 = x + x; ...; return v<n>; }`: n doublings, each local used twice. */
const doublings = (n: number) =>
  `(x) => { const v0 = x; ${Array.from({ length: n }, (_, k) => `const v${k + 1} = v${k} + v${k};`).join(' ')} return v${n}; }`;

for (const device of testDevices()) {
  test(`${device.name}: literals and Math constants are weak: on float64 data they are doubles, as in plain JS`, async () => {
    const dtypes = (['float64', 'float32'] as const).filter((d) => supportsDType(device, d));
    assert.ok(dtypes.length > 0);
    for (const dtype of dtypes) {
      const round = dtype === 'float32' ? Math.fround : (v: number) => v;
      const f = pointwise({ numOutputs: 3 }, (x: number) => [
        Math.hypot(x, Math.PI),
        x + 1 / 3,
        x * Math.E - Math.SQRT2 ** 2,
      ]);
      const outs = await f(tensor(xs, undefined, { device, dtype }));
      assert.equal(
        outs.map((o) => o.dtype),
        [dtype, dtype, dtype],
      );
      const [hypot, third, e] = await Promise.all(outs.map(async (o) => numbers(await o.toArray())));
      // Math.hypot's own rounding differs by an ulp from the scaled sum of squares
      assertNumbers(
        hypot,
        xs.map((x) => round(Math.hypot(round(x), Math.PI))),
        `${dtype} hypot(x, PI)`,
        dtype === 'float64' ? 4e-16 : 2e-7,
      );
      if (dtype === 'float64') {
        // a float32 third (0.3333333432674408) would be off by 1e-8
        assertNumbers(
          third,
          xs.map((x) => x + 1 / 3),
          'x + 1/3',
        );
        assertNumbers(
          e,
          xs.map((x) => x * Math.E - Math.SQRT2 ** 2),
          'x*E - SQRT2**2',
          1e-15,
        );
      }
    }
  });

  test(`${device.name}: === and !== keep booleans apart from numbers; == converts true to 1`, async () => {
    const f = pointwise({ numOutputs: 7 }, (x: number) => [
      ((x > 0) as unknown as number) === 1,
      ((x > 0) as unknown as number) !== 1,
      // biome-ignore lint/suspicious/noDoubleEquals: JavaScript's loose equality is what is tested
      ((x > 0) as unknown as number) == 1,
      x > 0 === true,
      (x > 0 ? true : 1) === 1,
      ((x > 0 && 1) as unknown) === 1,
      x === 2.5,
    ]);
    const outs = await f(tensor(xs, undefined, { device, dtype: 'float32' }));
    const expected: ((x: number) => boolean)[] = [
      (x) => ((x > 0) as unknown as number) === 1,
      (x) => ((x > 0) as unknown as number) !== 1,
      // biome-ignore lint/suspicious/noDoubleEquals: as above
      (x) => ((x > 0) as unknown as number) == 1,
      (x) => x > 0 === true,
      (x) => (x > 0 ? true : 1) === 1,
      (x) => ((x > 0 && 1) as unknown) === 1,
      (x) => x === 2.5,
    ];
    for (const [k, o] of outs.entries()) {
      assertNumbers(
        numbers(await o.toArray()),
        xs.map((x) => Number(expected[k](Math.fround(x)))),
        `output ${k}`,
      );
    }
  });

  test(`${device.name}: 14 and 40 chained doublings compile to code that grows linearly, and compute x * 2^n`, async () => {
    const x = tensor(xs, undefined, { device, dtype: 'float32' });
    const sizes: number[] = [];
    for (const n of [14, 40]) {
      const f = pointwise({}, doublings(n));
      sizes.push(f.plan(x).code().length);
      assertNumbers(
        numbers(await (await f(x)).toArray()),
        xs.map((v) => Math.fround(Math.fround(v) * 2 ** n)),
        `${n} doublings`,
      );
    }
    // 26 more doublings add 26 temporaries, not 2^40 terms (the 14-step code was 1.4 MB before)
    assert.ok(sizes[0] < 20_000, `14 doublings: ${sizes[0]} characters`);
    assert.ok(sizes[1] < 2 * sizes[0] + 26 * 400, `40 doublings: ${sizes[1]} characters against ${sizes[0]} for 14`);
  });
}

test.run();
