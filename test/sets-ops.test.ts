// Operations on BasicSet: building and reshaping the space, intersection, projection,
// bounds, emptiness, membership, implication and gist, on hand-picked cases.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Linear } from '../packages/core/src/linear.ts';
import { BasicSet, type Bound, eq, ge } from '../packages/core/src/sets/index.ts';

const lin = (coeffs: Record<string, number>, constant = 0) => Linear.of(coeffs, constant);
const text = (bounds: Bound[]) => bounds.map((b) => (b.divisor === 1 ? b.expr.toString() : `(${b.expr})/${b.divisor}`));

test('universe and addConstraints (unknown names become parameters)', () => {
  const u = BasicSet.universe(['n'], ['i']);
  assert.is(u.toString(), '[n] -> { [i] }');
  const s = u.addConstraints([ge(lin({ i: 1 })), ge(lin({ n: 1, i: -1 }, -1)), ge(lin({ m: 1, i: -1 }))]);
  assert.is(s.toString(), '[n, m] -> { [i] : 0 <= i < n and i <= m }');
  assert.equal(s.params, ['n', 'm']);
});

test('addDims, addParams, and moving variables between the two', () => {
  const s = BasicSet.parse('[n] -> { [i] : 0 <= i < n }');
  assert.equal(s.addDims(['j']).dims, ['i', 'j']);
  assert.equal(s.addParams(['m']).params, ['n', 'm']);
  const outer = s.moveDimsToParams(['i']);
  assert.equal([outer.params, outer.dims], [['n', 'i'], []]);
  const back = outer.moveParamsToDims(['i']);
  assert.is(back.toString(), s.toString());
  assert.throws(() => s.moveDimsToParams(['n']), /'n' is not a set variable/);
  assert.throws(() => s.addDims(['i']), /declared twice/);
});

test('renameVariable', () => {
  const s = BasicSet.parse('[n] -> { [i, j] : 0 <= j <= i < n }');
  assert.is(s.renameVariable('i', 'i_outer').toString(), '[n] -> { [i_outer, j] : i_outer < n and 0 <= j <= i_outer }');
  assert.is(s.renameVariable('n', 'm').toString(), '[m] -> { [i, j] : i < m and 0 <= j <= i }');
  assert.throws(() => s.renameVariable('i', 'j'), /'j' already exists/);
});

test('intersect matches variables by name; an outer iname used as a parameter meets its loop', () => {
  const outer = BasicSet.parse('[n] -> { [i] : 0 <= i < n }');
  const inner = BasicSet.parse('[i] -> { [j] : 0 <= j <= i }');
  const both = outer.intersect(inner);
  assert.equal([both.params, both.dims], [['n'], ['i', 'j']]);
  assert.is(both.toString(), '[n] -> { [i, j] : 0 <= i < n and 0 <= j <= i }');
  const strided = BasicSet.parse('{ [i] : i mod 2 = 0 }');
  const twice = strided.intersect(BasicSet.parse('{ [i] : i mod 3 = 0 and 0 <= i <= 12 }'));
  assert.equal(
    [0, 6, 12].map((i) => twice.contains({ i })),
    [true, true, true],
  );
  assert.equal(
    [2, 3, 4, 9].map((i) => twice.contains({ i })),
    [false, false, false, false],
  );
  // Existentials are local: a set intersected with itself keeps its points.
  const self = BasicSet.parse('{ [i, j] : exists (e: i = 2e + j and 0 <= e <= 1) }');
  const selfTwice = self.intersect(self);
  for (let i = -3; i <= 5; i++)
    for (let j = -3; j <= 3; j++) assert.is(selfTwice.contains({ i, j }), self.contains({ i, j }));
});

test('project eliminates exactly, keeping strides as existentials', () => {
  const s = BasicSet.parse('[n] -> { [i, j] : 0 <= j <= i < n }');
  assert.is(s.project(['j']).toString(), '[n] -> { [i] : 0 <= i < n }');
  assert.is(s.project(['i']).toString(), '[n] -> { [j] : 0 <= j < n }');
  assert.is(s.project(['i', 'j']).toString(), '[n] -> { : n > 0 }');
  assert.is(
    BasicSet.parse('{ [i, j] : 0 <= i <= 10 and i = 2j }').project(['j']).toString(),
    '{ [i] : 0 <= i <= 10 and i mod 2 = 0 }',
  );
  // Between the two shadows: 3j - i in [2, 4] always holds for some j.
  assert.is(
    BasicSet.parse('{ [i, j] : 0 <= i <= 10 and 2 <= 3j - i <= 4 }').project(['j']).toString(),
    '{ [i] : 0 <= i <= 10 }',
  );
  // A split iname projected back: the original loop.
  const split = BasicSet.parse('[n] -> { [i, io, ii] : 0 <= ii < 16 and i = 16io + ii and 0 <= i < n }');
  assert.is(split.project(['io', 'ii']).toString(), '[n] -> { [i] : 0 <= i < n }');
  // Projecting a parameter away.
  assert.is(s.project(['n']).toString(), '{ [i, j] : 0 <= j <= i }');
  // A middle part of a split of a split, projected from under the outer one: its least value
  // is 0 for every inner ii, though the bound -2560o - ii (o unbounded above) has no constant
  // ceiling; o >= 0 keeps that bound below the other (test_global_parallel_reduction's init)
  const nested = BasicSet.parse(
    '[n] -> { [o, im, ii] : o >= 0 and 0 <= ii <= 127 and 0 <= 128im + ii <= 2559 and 0 <= 2560o + 128im + ii < n }',
  );
  const init = nested.project(['im']);
  assert.equal(init.existentials, []);
  assert.is(init.toString(), '[n] -> { [o, ii] : o >= 0 and 0 <= ii <= 127 and ii < n - 2560o }');
});

test('bounds of the triangle (the examples of the spec)', () => {
  const s = BasicSet.parse('[n] -> { [i, j] : 0 <= j <= i < n }');
  assert.equal(text(s.upperBounds('j', ['i'])), ['i']);
  assert.equal(text(s.upperBounds('i', [])), ['n - 1']);
  assert.equal(text(s.lowerBounds('j', [])), ['0']);
  assert.equal(text(s.lowerBounds('j', ['i'])), ['0']);
  assert.equal(text(s.lowerBounds('i', [])), ['0']);
  assert.equal(text(s.lowerBounds('i', ['j'])), ['j']);
  const tri = s.upperBounds('i', [])[0]!;
  assert.is(tri.divisor, 1);
});

test('bounds: several, with divisors, redundant ones dropped', () => {
  assert.equal(text(BasicSet.parse('[n] -> { [i] : 0 <= i < n and i <= 15 }').upperBounds('i', [])), ['n - 1', '15']);
  assert.equal(text(BasicSet.parse('[n] -> { [i] : 0 <= i < n and n <= 10 and i <= 12 }').upperBounds('i', [])), [
    'n - 1',
  ]);
  assert.equal(text(BasicSet.parse('[n] -> { [i] : 0 <= 2i <= n }').upperBounds('i', [])), ['(n)/2']);
  assert.equal(text(BasicSet.parse('[n] -> { [i] : 3i >= n + 1 }').lowerBounds('i', [])), ['(n + 1)/3']);
  const split = BasicSet.parse('[n] -> { [io, ii] : 0 <= ii < 16 and 0 <= 16io + ii < n }');
  assert.equal(text(split.upperBounds('io', [])), ['(n - 1)/16']);
  assert.equal(text(split.lowerBounds('io', [])), ['0']);
  assert.equal(text(split.upperBounds('ii', ['io'])), ['15', 'n - 16io - 1']);
  assert.equal(text(BasicSet.parse('{ [i, j] : i = 2j + 1 and 0 <= j < 5 }').upperBounds('i', [])), ['9']);
  assert.equal(text(BasicSet.parse('{ [i] : 0 <= i }').upperBounds('i', [])), []);
});

test('isEmpty is exact on the integers', () => {
  assert.not.ok(BasicSet.parse('[n] -> { [i] : 0 <= i < n }').isEmpty());
  assert.ok(BasicSet.parse('{ [i] : 0 <= i < 10 and i > 20 }').isEmpty());
  // Rationally non-empty, no integer point (Pugh's example for the Omega test).
  assert.ok(BasicSet.parse('{ [x, y] : 27 <= 11x + 13y <= 45 and -10 <= 7x - 9y <= 4 }').isEmpty());
  assert.ok(BasicSet.parse('{ [i, j] : 1 <= 2i - 4j <= 1 }').isEmpty());
  assert.ok(BasicSet.parse('{ [i] : 1 <= 3i <= 2 }').isEmpty());
  assert.ok(BasicSet.parse('{ [i] : i mod 4 = 1 and i mod 2 = 0 }').isEmpty());
  assert.not.ok(BasicSet.parse('{ [i] : i mod 4 = 1 and i mod 3 = 0 and 0 <= i < 12 }').isEmpty());
  assert.ok(BasicSet.parse('{ [i] : i mod 4 = 1 and i mod 3 = 0 and 0 <= i < 9 }').isEmpty());
  assert.ok(BasicSet.parse('[n] -> { [i] : 0 <= i < n and n <= 0 }').isEmpty());
});

test('contains searches the existentials', () => {
  const s = BasicSet.parse('[n] -> { [i] : 0 <= i < n and exists l: i = 3l + 1 }');
  assert.ok(s.contains({ n: 10, i: 7 }));
  assert.not.ok(s.contains({ n: 10, i: 6 }));
  assert.not.ok(s.contains({ n: 7, i: 7 }));
  assert.throws(() => s.contains({ i: 1 }), /no value for 'n'/);
});

test('implies', () => {
  const s = BasicSet.parse('[n] -> { [i, j] : 0 <= j <= i < n }');
  assert.ok(s.implies(ge(lin({ n: 1 }, -1)))); // n >= 1
  assert.ok(s.implies(ge(lin({ n: 1, j: -1 }, -1)))); // j < n
  assert.not.ok(s.implies(ge(lin({ n: 1 }, -2)))); // n >= 2
  assert.ok(BasicSet.parse('{ [i] : 2 <= i <= 2 }').implies(eq(lin({ i: 1 }, -2))));
  assert.not.ok(BasicSet.parse('{ [i] : 2 <= i <= 3 }').implies(eq(lin({ i: 1 }, -2))));
  // Only on the integers: 2i in [1, 3] means i = 1.
  assert.ok(BasicSet.parse('{ [i] : 1 <= 2i <= 3 }').implies(eq(lin({ i: 1 }, -1))));
});

test('gist drops what the context implies', () => {
  const assumptions = BasicSet.parseConditions('n >= 1');
  assert.is(
    BasicSet.parse('[n] -> { [i] : 0 <= i < n and n >= 1 }').gist(assumptions).toString(),
    '[n] -> { [i] : 0 <= i < n }',
  );
  assert.is(BasicSet.parse('[n] -> { : n >= 0 }').gist(assumptions).toString(), '[n] -> { : true }');
  // A loop guard of a split loop, implied when n is a multiple of 16.
  const guard = BasicSet.parse('[n] -> { [io, ii] : 16io + ii < n }');
  const loop = BasicSet.parse('[n] -> { [io, ii] : 0 <= ii < 16 and 0 <= io and 16io < n }');
  const within = loop.intersect(BasicSet.parseConditions('n mod 16 = 0'));
  assert.is(guard.gist(within).toString(), '[n] -> { [io, ii] }');
  assert.is(guard.gist(loop).toString(), guard.toString());
  // Redundant among themselves: one of the two copies goes.
  assert.is(
    BasicSet.parse('{ [i] : 0 <= i <= 5 and 2i <= 11 }').gist(BasicSet.universe([], [])).toString(),
    '{ [i] : 0 <= i <= 5 }',
  );
  // Empty within the context stays empty.
  assert.ok(BasicSet.parse('[n] -> { [i] : 0 <= i < n }').gist(BasicSet.parseConditions('n <= 0')).isEmpty());
});

test.run();
