// Quasi-affine indices (codegen/quasi-affine.ts): each distinct floor division becomes one
// variable, so an FFT index that spells `l // 9` six times costs the Omega test one unknown.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseExpression } from '../packages/core/src/expr/parse.ts';
import { floorConstraints, quasiAffine } from '../packages/core/src/codegen/quasi-affine.ts';

test('a division written several times is one variable; remainders reuse the quotient', () => {
  const q = quasiAffine(parseExpression('(l // 9) * 81 + l % 9 + (l // 9) // 9 + (l // 9) % 9 * 3'), 'q');
  assert.ok(q);
  assert.equal(
    q.floors.map((f) => `${f.name} = (${f.numerator}) // ${f.divisor}`),
    ['q0 = (l) // 9', 'q1 = (q0) // 9'],
  );
  // l = 100: 11·81 + 1 + 1 + 2·3
  const l = 100;
  const env = { l, q0: Math.floor(l / 9), q1: Math.floor(Math.floor(l / 9) / 9) };
  assert.is(q.lin.evaluate(env), 11 * 81 + 1 + 1 + 2 * 3);
  assert.ok(floorConstraints(q.floors).every((c) => c.expr.evaluate(env) >= 0));
});

test('divisions of different numerators or divisors stay apart', () => {
  const q = quasiAffine(parseExpression('l // 9 + l // 3 + (l + 1) // 9'), 'q');
  assert.is(q?.floors.length, 3);
});

test.run();
