// Static maxima and minima: one affine expression bounding a quantity over several
// domains, or loopy's StaticValueFindingError showing the piecewise value.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { StaticValueFindingError } from '../packages/core/src/errors.ts';
import { Linear } from '../packages/core/src/linear.ts';
import { BasicSet, type PieceTerm, staticMax, staticMin } from '../packages/core/src/sets/index.ts';

const lin = (coeffs: Record<string, number>, constant = 0) => Linear.of(coeffs, constant);
const nothingAssumed = BasicSet.universe([], []);

/** loopy's tutorial: the length of `out` for `out[i] = 5` over 0 <= i < n and `out[0] = 6`. */
const tutorialTerms: PieceTerm[] = [
  { set: BasicSet.parse('{ [i]: 0<=i<n }'), expr: lin({ i: 1 }, 1) },
  { set: BasicSet.universe(['n'], []), expr: Linear.constant(1) },
];

function failsWith(fn: () => unknown, message: string): void {
  try {
    fn();
  } catch (e) {
    assert.instance(e, StaticValueFindingError);
    assert.is((e as Error).message, message);
    return;
  }
  assert.unreachable('no error');
}

test("loopy's tutorial: no static maximum without assumptions", () => {
  const message = "a static maximum was not found for PwAff '[n] -> { [(1)] : n <= 1; [(n)] : n >= 2 }'";
  failsWith(() => staticMax(tutorialTerms, nothingAssumed), message);
  failsWith(() => staticMax(tutorialTerms, BasicSet.universe(['n'], [])), message);
});

test("loopy's tutorial: with n >= 1 the maximum is n", () => {
  assert.is(staticMax(tutorialTerms, BasicSet.parseConditions('n>=1')).toString(), 'n');
  assert.is(staticMax([...tutorialTerms].reverse(), BasicSet.parseConditions('n>=1')).toString(), 'n');
});

test('a single domain', () => {
  assert.is(
    staticMax([{ set: BasicSet.parse('{ [i]: 0<=i<n }'), expr: lin({ i: 1 }) }], nothingAssumed).toString(),
    'n - 1',
  );
  assert.is(
    staticMin([{ set: BasicSet.parse('{ [i]: 0<=i<n }'), expr: lin({ i: 1 }) }], nothingAssumed).toString(),
    '0',
  );
  const two = BasicSet.parse('{ [i, j] : 0 <= i < n and 0 <= j < m }');
  const result = staticMax([{ set: two, expr: lin({ i: 2, j: 1 }) }], nothingAssumed);
  assert.ok(result.equals(lin({ n: 2, m: 1 }, -3)), result.toString());
});

test('domains that are empty, or empty within the context, are ignored', () => {
  const terms: PieceTerm[] = [
    { set: BasicSet.parse('{ [i]: 0<=i<n }'), expr: lin({ i: 1 }, 1) },
    { set: BasicSet.parse('{ [i]: 0<=i<n and n < 0 }'), expr: lin({ i: 1 }, 100) },
    { set: BasicSet.parse('{ [i]: 0<=i<n and n > 50 }'), expr: lin({ i: 1 }, 100) },
  ];
  assert.is(staticMax(terms, BasicSet.parseConditions('0 <= n <= 50')).toString(), 'n');
});

test('of several valid candidates the tightest wins, in either order', () => {
  const terms: PieceTerm[] = [
    { set: BasicSet.parse('{ [i] : 0 <= i < n and i <= 20 }'), expr: lin({ i: 1 }) },
    { set: BasicSet.parse('{ [i] : 0 <= i < n }'), expr: lin({ i: 1 }) },
  ];
  const context = BasicSet.parseConditions('1 <= n <= 10');
  assert.is(staticMax(terms, context).toString(), 'n - 1');
  assert.is(staticMax([...terms].reverse(), context).toString(), 'n - 1');
});

test('keep: the maximum as a function of an outer iname', () => {
  const triangle = BasicSet.parse('[n] -> { [i, j] : 0 <= j <= i < n }');
  assert.is(staticMax([{ set: triangle, expr: lin({ j: 1 }) }], nothingAssumed, ['i']).toString(), 'i');
  assert.is(staticMin([{ set: triangle, expr: lin({ i: 1 }) }], nothingAssumed, ['j']).toString(), 'j');
});

test('divisors: exact ones are fine, others have no affine maximum', () => {
  const even = BasicSet.parse('{ [i, k] : 0 <= i < 2n and i = 2k }');
  assert.is(
    staticMax([{ set: BasicSet.parse('{ [i] : 0 <= 2i <= 2n }'), expr: lin({ i: 1 }) }], nothingAssumed).toString(),
    'n',
  );
  assert.is(staticMax([{ set: even, expr: lin({ k: 1 }) }], nothingAssumed).toString(), 'n - 1');
  failsWith(
    () => staticMax([{ set: BasicSet.parse('{ [i] : 0 <= 2i <= n }'), expr: lin({ i: 1 }) }], nothingAssumed),
    "a static maximum was not found for PwAff '[n] -> { [(floor((n)/2))] : n >= 0 }'",
  );
});

test('the pieces are shown within the context', () => {
  const terms: PieceTerm[] = [
    { set: BasicSet.parse('{ [i] : 0 <= i < n }'), expr: lin({ i: 1 }) },
    { set: BasicSet.parse('{ [i] : 0 <= i < m }'), expr: lin({ i: 1 }) },
  ];
  failsWith(
    () => staticMax(terms, BasicSet.parseConditions('n >= 1 and m >= 1')),
    "a static maximum was not found for PwAff '[n, m] -> { [(m - 1)] : m >= n; [(n - 1)] : m < n }'",
  );
});

test('staticMin mirrors staticMax', () => {
  const terms: PieceTerm[] = [
    { set: BasicSet.parse('{ [i]: 0<=i<n }'), expr: lin({ i: -1 }, -1) },
    { set: BasicSet.universe(['n'], []), expr: Linear.constant(-1) },
  ];
  failsWith(
    () => staticMin(terms, nothingAssumed),
    "a static minimum was not found for PwAff '[n] -> { [(-1)] : n <= 1; [(-n)] : n >= 2 }'",
  );
  assert.is(staticMin(terms, BasicSet.parseConditions('n >= 1')).toString(), '-n');
});

test('an unbounded quantity has no static maximum', () => {
  assert.throws(
    () => staticMax([{ set: BasicSet.parse('{ [i] : i >= 0 }'), expr: lin({ i: 1 }) }], nothingAssumed),
    (e: unknown) =>
      e instanceof StaticValueFindingError && /i is unbounded above on \{ \[i\] : i >= 0 \}/.test((e as Error).message),
  );
});

test.run();
