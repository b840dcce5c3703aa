// Quasi-affine indices (codegen/quasi-affine.ts): each distinct floor division becomes one
// variable, so an FFT index that spells `l // 9` six times costs the Omega test one unknown.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { parseExpression } from '../packages/core/src/expr/parse.ts';
import { binary, int, neg, variable, type Expr } from '../packages/core/src/expr/nodes.ts';
import { floorConstraints, productConstraints, quasiAffine } from '../packages/core/src/codegen/quasi-affine.ts';
import { intervalOf } from '../packages/core/src/codegen/index-range.ts';

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

// Soundness, by enumeration: random index expressions over loop indices in small ranges (one of
// them negative in part), with products, floor divisions and remainders by constants
const RANGES: Record<string, { low: number; high: number }> = {
  i: { low: 0, high: 7 },
  j: { low: 0, high: 5 },
  k: { low: -3, high: 3 },
};
const floorDiv = (a: number, b: number) => Math.floor(a / b);
const pyMod = (a: number, b: number) => a - b * Math.floor(a / b);

function evaluate(e: Expr, env: Record<string, number>): number {
  switch (e.kind) {
    case 'int':
      return e.value;
    case 'var':
      return env[e.name]!;
    case 'neg':
      return -evaluate(e.operand, env);
    case 'binary': {
      const [a, b] = [evaluate(e.left, env), evaluate(e.right, env)];
      if (e.op === '+') return a + b;
      if (e.op === '-') return a - b;
      if (e.op === '*') return a * b;
      if (e.op === '//') return floorDiv(a, b);
      if (e.op === '%') return pyMod(a, b);
      throw new Error(e.op);
    }
    default:
      throw new Error(e.kind);
  }
}

const indexExpr: fc.Arbitrary<Expr> = fc.letrec<{ e: Expr }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('i', 'j', 'k').map(variable),
    fc.integer({ min: -4, max: 9 }).map(int),
    fc.tuple(fc.constantFrom('+', '-', '*'), tie('e'), tie('e')).map(([op, a, b]) => binary(op, a, b)),
    fc
      .tuple(fc.constantFrom('//', '%'), tie('e'), fc.integer({ min: 1, max: 9 }))
      .map(([op, a, c]) => binary(op, a, int(c))),
    tie('e').map(neg),
  ),
})).e;

function* points(): Generator<Record<string, number>> {
  for (let i = RANGES.i!.low; i <= RANGES.i!.high; i++)
    for (let j = RANGES.j!.low; j <= RANGES.j!.high; j++)
      for (let k = RANGES.k!.low; k <= RANGES.k!.high; k++) yield { i, j, k };
}

test('intervalOf bounds every value an index takes', () => {
  fc.assert(
    fc.property(indexExpr, (e) => {
      const range = intervalOf(e, (v) => RANGES[v]);
      if (!range) return;
      for (const p of points()) {
        const x = evaluate(e, p);
        assert.ok(
          range.low <= x && x <= range.high,
          `${x} outside [${range.low}, ${range.high}] at ${JSON.stringify(p)}`,
        );
      }
    }),
    { numRuns: 400, seed: 30 },
  );
});

test('quasiAffine: the index is its affine form, its divisions and bounded products holding their constraints', () => {
  fc.assert(
    fc.property(indexExpr, (e) => {
      const q = quasiAffine(e, 'q', (v) => RANGES[v]);
      if (!q) return;
      for (const p of points()) {
        const env: Record<string, number> = { ...p };
        for (const t of q.products) env[t.name] = evaluate(t.expr, p);
        for (const f of q.floors) env[f.name] = floorDiv(f.numerator.evaluate(env), f.divisor);
        assert.is(q.lin.evaluate(env), evaluate(e, p));
        for (const c of [...floorConstraints(q.floors), ...productConstraints(q.products)])
          assert.ok(c.expr.evaluate(env) >= 0, `a constraint fails at ${JSON.stringify(env)}`);
      }
    }),
    { numRuns: 400, seed: 31 },
  );
});

test.run();
