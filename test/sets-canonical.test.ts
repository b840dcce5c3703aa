// The set library remembers its answers up to renaming (sets/canonical.ts): a question asked
// again in other names must get the same answer in its own names, and the answers must stay
// right (checked here against the points, counted by brute force).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Linear } from '../packages/core/src/linear.ts';
import { BasicSet, type Bound, staticMax, staticMin } from '../packages/core/src/sets/index.ts';
import { canonicalForm } from '../packages/core/src/sets/canonical.ts';

const text = (bounds: readonly Bound[]) =>
  bounds.map((b) => (b.divisor === 1 ? b.expr.toString() : `(${b.expr})/${b.divisor}`));

test('a system and its renaming share a key; another order or coefficient does not', () => {
  const a = BasicSet.parse('[n] -> { [i, j] : 0 <= i < n and 0 <= j <= i }');
  const b = BasicSet.parse('[m] -> { [p, q] : 0 <= p < m and 0 <= q <= p }');
  const c = BasicSet.parse('[n] -> { [i, j] : 0 <= i < n and 0 <= j <= 2i }');
  assert.is(canonicalForm(a.constraints).key, canonicalForm(b.constraints).key);
  assert.is.not(canonicalForm(a.constraints).key, canonicalForm(c.constraints).key);
  assert.equal(canonicalForm(b.constraints).names, ['p', 'm', 'q']);
});

test('bounds asked again under other names come back in those names', () => {
  const first = BasicSet.parse('[n] -> { [io, ii] : 0 <= ii < 16 and 0 <= 16io + ii < n }');
  const again = BasicSet.parse('[len] -> { [go, gi] : 0 <= gi < 16 and 0 <= 16go + gi < len }');
  assert.equal(text(first.upperBounds('ii', ['io'])), ['15', 'n - 16io - 1']);
  assert.equal(text(again.upperBounds('gi', ['go'])), ['15', 'len - 16go - 1']);
  assert.equal(text(again.lowerBounds('go', [])), ['0']);
  assert.equal(text(first.lowerBounds('io', [])), ['0']);
});

test('gist and emptiness answer per renaming, the empty set included', () => {
  const context = BasicSet.parseConditions('n >= 1');
  const set = BasicSet.parse('[n] -> { [i] : 0 <= i < n and n >= 1 }');
  const renamed = BasicSet.parse('[k] -> { [x] : 0 <= x < k and k >= 1 }');
  assert.is(set.gist(context).toString(), '[n] -> { [i] : 0 <= i < n }');
  assert.is(renamed.gist(BasicSet.parseConditions('k >= 1')).toString(), '[k] -> { [x] : 0 <= x < k }');
  const empty = BasicSet.parse('[n] -> { [i] : 0 <= i < n and i >= n + 3 }');
  assert.ok(empty.isEmpty());
  assert.ok(BasicSet.parse('[m] -> { [y] : 0 <= y < m and y >= m + 3 }').isEmpty());
});

test('static values under renaming, each checked against every point for small parameters', () => {
  const term = (set: BasicSet, v: string) => [{ set, expr: Linear.variable(v) }];
  const a = BasicSet.parse('[n] -> { [i] : 0 <= i < n and i mod 4 = 0 }');
  const b = BasicSet.parse('[w] -> { [t] : 0 <= t < w and t mod 4 = 0 }');
  const ctxA = BasicSet.parseConditions('n >= 1 and n mod 4 = 0');
  const ctxB = BasicSet.parseConditions('w >= 1 and w mod 4 = 0');
  const maxA = staticMax(term(a, 'i'), ctxA);
  const maxB = staticMax(term(b, 't'), ctxB);
  assert.is(maxB.toString(), maxA.toString().replaceAll('n', 'w'));
  assert.is(staticMin(term(b, 't'), ctxB).toString(), '0');
  for (const n of [4, 8, 12, 16]) {
    const points = Array.from({ length: n }, (_, i) => i).filter((i) => i % 4 === 0);
    // a static maximum bounds every point (n - 1 here: valid, not the least)
    assert.ok(
      points.every((i) => i <= maxA.evaluate({ n }) && i <= maxB.evaluate({ w: n })),
      `n = ${n}`,
    );
  }
});

test.run();
