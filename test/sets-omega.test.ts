// The Omega test (sets/omega.ts) against brute force: random systems whose coefficients are
// large enough to need the dark shadow and its splinters, and the system an FFT index leaves
// (nested divisions by 9 under a bound by 16) that once took seconds for each question.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { hasIntegerPoint } from '../packages/core/src/sets/omega.ts';
import { Linear } from '../packages/core/src/linear.ts';
import { type Constraint, ge } from '../packages/core/src/sets/constraint.ts';

const BOX = 5;
const NAMES = ['x', 'y', 'z'] as const;

interface Row {
  readonly coeffs: readonly number[];
  readonly constant: number;
}

const boxed = (): Constraint[] =>
  NAMES.flatMap((n) => [ge(Linear.of({ [n]: 1 }, BOX)), ge(Linear.of({ [n]: -1 }, BOX))]);
const toConstraint = (r: Row): Constraint =>
  ge(
    Linear.of(
      NAMES.map((n, k) => [n, r.coeffs[k]!] as const),
      r.constant,
    ),
  );

function bruteForce(rows: readonly Row[]): boolean {
  for (let x = -BOX; x <= BOX; x++)
    for (let y = -BOX; y <= BOX; y++)
      for (let z = -BOX; z <= BOX; z++) {
        const p = [x, y, z];
        if (rows.every((r) => r.coeffs.reduce((s, c, k) => s + c * p[k]!, r.constant) >= 0)) return true;
      }
  return false;
}

test('integer points of systems with coefficients up to 9 agree with enumeration', () => {
  const row = fc.record({
    coeffs: fc.array(fc.integer({ min: -9, max: 9 }), { minLength: 3, maxLength: 3 }),
    constant: fc.integer({ min: -12, max: 12 }),
  });
  fc.assert(
    fc.property(fc.array(row, { minLength: 2, maxLength: 5 }), (rows) => {
      assert.is(hasIntegerPoint([...boxed(), ...rows.map(toConstraint)]), bruteForce(rows));
    }),
    { numRuns: 300, seed: 29 },
  );
});

test('thin slabs between parallel planes: the splinters find the one integer layer', () => {
  // 7x + 5y + 3z lies in [c, c + w]: empty or not depending on the residues
  for (let c = -20; c <= 20; c += 3)
    for (const w of [0, 1]) {
      const rows = [
        { coeffs: [7, 5, 3], constant: -c },
        { coeffs: [-7, -5, -3], constant: c + w },
        { coeffs: [6, -9, 0], constant: 2 },
        { coeffs: [-6, 9, 0], constant: 1 },
      ];
      assert.is(hasIntegerPoint([...boxed(), ...rows.map(toConstraint)]), bruteForce(rows), `c=${c} w=${w}`);
    }
});

/** q = floor(num / d) as two constraints. */
const floorOf = (q: string, num: Record<string, number>, d: number): Constraint[] => [
  ge(Linear.of({ ...num, [q]: -d })),
  ge(Linear.of({ ...Object.fromEntries(Object.entries(num).map(([n, c]) => [n, -c])), [q]: d }, d - 1)),
];

test('nested divisions of an FFT index: every offset answered, and as enumeration says', () => {
  // l in [0, 729); a = l // 9, b = a // 9, c = l % 9 = l - 9a; the index
  // t = (729·b - 81·a + 10·l + offset) // 16 must be >= 0: true only for the largest indices
  for (const offset of [-6700, -6633, -6632, -6600, 81]) {
    const cs: Constraint[] = [
      ge(Linear.of({ l: 1 })),
      ge(Linear.of({ l: -1 }, 728)),
      ...floorOf('a', { l: 1 }, 9),
      ...floorOf('b', { a: 1 }, 9),
      ge(Linear.of({ b: 729, a: -81, l: 10, t: -16 }, offset)),
      ge(Linear.of({ t: 16, b: -729, a: 81, l: -10 }, 15 - offset)),
      ge(Linear.of({ t: 1 })),
    ];
    let expected = false;
    for (let l = 0; l < 729 && !expected; l++) {
      const a = Math.floor(l / 9);
      const b = Math.floor(a / 9);
      const t = Math.floor((729 * b - 81 * a + 10 * l + offset) / 16);
      expected = t >= 0;
    }
    assert.is(hasIntegerPoint(cs), expected, `offset ${offset}`);
  }
});

test.run();
