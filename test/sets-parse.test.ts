// The ISL set syntax: every construct loopy's reference allows parses to the right set
// (checked point by point), and every rejected one fails with a message that names it
// and a caret under the offending text.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError } from '../packages/core/src/errors.ts';
import { BasicSet } from '../packages/core/src/sets/index.ts';

type Point = Record<string, number>;

/** All points of a box: each name ranges over lo..hi. */
function* box(names: readonly string[], lo: number, hi: number): Generator<Point> {
  if (names.length === 0) return yield {};
  const [first, ...rest] = names;
  for (const p of box(rest, lo, hi)) for (let v = lo; v <= hi; v++) yield { [first!]: v, ...p };
}

/** The set has exactly the points where `expected` holds, within a box. */
function samePoints(text: string, expected: (p: Point) => boolean, lo = -4, hi = 18): BasicSet {
  const set = BasicSet.parse(text);
  for (const p of box([...set.params, ...set.dims], lo, hi)) {
    if (set.contains(p) !== expected(p)) assert.unreachable(`${text} at ${JSON.stringify(p)}: expected ${expected(p)}`);
  }
  return set;
}

const mod = (a: number, m: number) => ((a % m) + m) % m;

test('simple conditions and conjunctions', () => {
  samePoints('{ [i] : i <= 15 }', ({ i }) => i! <= 15);
  samePoints('{[i]: i>0}', ({ i }) => i! > 0);
  samePoints('{ [i]: i > 0 and i <= 15 }', ({ i }) => i! > 0 && i! <= 15);
  samePoints('{ [i]: i >= 3 and i < 7 and i = i }', ({ i }) => i! >= 3 && i! < 7);
});

test('two-sided conditions (chains)', () => {
  samePoints('{ [i]: 0 < i <= 15 }', ({ i }) => i! > 0 && i! <= 15);
  samePoints('{ [i] : 0 <= i < n }', ({ i, n }) => i! >= 0 && i! < n!, -2, 6);
  samePoints('{ [i, j] : 0 <= j <= i < 5 }', ({ i, j }) => j! >= 0 && j! <= i! && i! < 5, -2, 7);
  samePoints('{ [i] : 1 < i + 1 >= 3 }', ({ i }) => 1 < i! + 1 && i! + 1 >= 3);
});

test('identical conditions on several variables', () => {
  samePoints('{ [i, j] : 0 < i,j <= 15 }', ({ i, j }) => i! > 0 && i! <= 15 && j! > 0 && j! <= 15, -1, 17);
  samePoints(
    '{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }',
    (p) => ['i', 'j', 'ii', 'jj'].every((k) => p[k]! >= 0 && p[k]! < p.n!),
    -1,
    2,
  );
  samePoints(
    '{ [i, j] : 0 <= i, j < n, m }',
    ({ i, j, n, m }) => [i!, j!].every((v) => v >= 0 && v < n! && v < m!),
    -1,
    3,
  );
});

test('equalities, products with constants, parentheses and unary minus', () => {
  samePoints('{ [i, j] : i = j*3 }', ({ i, j }) => i === 3 * j!);
  samePoints('{ [i, j] : i = 3*j }', ({ i, j }) => i === 3 * j!);
  samePoints('{ [i, j] : i = 3j + 1 }', ({ i, j }) => i === 3 * j! + 1);
  samePoints('{ [i, j] : 2*(i + 1) <= j }', ({ i, j }) => 2 * (i! + 1) <= j!);
  samePoints('{ [i, j] : (i + 1)*2 <= j and 2(j - i) < 9 }', ({ i, j }) => 2 * (i! + 1) <= j! && 2 * (j! - i!) < 9);
  samePoints('{ [i] : -(i - 2) >= -3 and -i <= 0 }', ({ i }) => -(i! - 2) >= -3 && -i! <= 0);
  samePoints('{ [i] : - -i = 4 }', ({ i }) => i === 4);
});

test('fractions in comparisons hold over the rationals, as in isl: 0 <= i < n/16 is 16*i < n', () => {
  samePoints('{ [i] : i/2 <= 3 }', ({ i }) => i! / 2 <= 3);
  samePoints('[n] -> { [i] : 0 <= i < n/4 }', ({ i, n }) => 0 <= i! && i! < n! / 4);
  samePoints('{ [i, j] : i/3 < j/2 + 1 }', ({ i, j }) => i! / 3 < j! / 2 + 1, -6, 9);
  samePoints('{ [i] : i/2 = 3 }', ({ i }) => i === 6);
  samePoints('{ [i] : 3*i/2 >= 4 and i/2 + i/3 <= 5 }', ({ i }) => (3 * i!) / 2 >= 4 && i! / 2 + i! / 3 <= 5);
  // the same set as the one the fraction is multiplied out of
  assert.equal(
    BasicSet.parse('[n] -> { [i] : 0 <= i < n/16 }').toString(),
    BasicSet.parse('[n] -> { [i] : 0 <= i and 16i < n }').toString(),
  );
});

test('modulo', () => {
  samePoints('{ [i] : i mod 3 = 0 }', ({ i }) => mod(i!, 3) === 0);
  samePoints('{ [i] : i mod 4 = 3 and 0 <= i }', ({ i }) => mod(i!, 4) === 3 && i! >= 0);
  samePoints('{ [i, j] : (i + 2j) mod 3 = 1 }', ({ i, j }) => mod(i! + 2 * j!, 3) === 1, -4, 6);
  samePoints('{ [i] : i mod 5 >= 3 }', ({ i }) => mod(i!, 5) >= 3);
  samePoints('{ [i] : 2 * (i mod 3) = 2 }', ({ i }) => mod(i!, 3) === 1);
});

test('existential quantifiers', () => {
  samePoints('{ [i] : (exists l: i = 3*l) }', ({ i }) => mod(i!, 3) === 0);
  samePoints('{ [i] : exists l: i = 3*l and l < 2 }', ({ i }) => mod(i!, 3) === 0 && i! < 6);
  samePoints('{ [i] : exists (l: i = l*3 + 1) }', ({ i }) => mod(i!, 3) === 1);
  samePoints('{ [i] : 0 <= i and exists l, m: i = 3l + 5m and 0 <= l, m <= 1 }', ({ i }) => [0, 3, 5, 8].includes(i!));
  samePoints(
    '{ [i, j] : (exists l: i = 2l) and (exists l: j = 3l) }',
    ({ i, j }) => mod(i!, 2) === 0 && mod(j!, 3) === 0,
    -3,
    7,
  );
  // A name bound by `exists` is local: outside its parentheses it is a parameter.
  const s = BasicSet.parse('{ [i] : (exists l: i = 2l) and i < l }');
  assert.equal(s.params, ['l']);
  assert.ok(s.contains({ i: 2, l: 3 }));
  assert.not.ok(s.contains({ i: 3, l: 5 }));
});

test('floor and ceil of a division by a constant', () => {
  samePoints('{ [i] : floor(i/3) = 2 }', ({ i }) => Math.floor(i! / 3) === 2);
  samePoints('{ [i, j] : floor((i + j)/2) <= 1 }', ({ i, j }) => Math.floor((i! + j!) / 2) <= 1, -4, 6);
  samePoints('{ [i] : ceil(i/2) = 1 }', ({ i }) => Math.ceil(i! / 2) === 1);
  samePoints('{ [i] : floor(i / -2) = 1 }', ({ i }) => Math.floor(i! / -2) === 1);
  samePoints('{ [i] : floor(i/2 + i/3) = 4 }', ({ i }) => Math.floor(i! / 2 + i! / 3) === 4);
});

test('set shapes: parameters prefix, no conditions, no variables', () => {
  assert.equal(BasicSet.parse('{ [i] }').toString(), '{ [i] }');
  assert.equal(BasicSet.parse('{ [] }').dims, []);
  const params = BasicSet.parse('{ : n >= 1 }');
  assert.equal([params.params, params.dims], [['n'], []]);
  assert.ok(params.contains({ n: 1 }));
  assert.not.ok(params.contains({ n: 0 }));
  assert.equal(BasicSet.parse('[] -> {[i,k,j]: 0<=i<50 and 1<=k<98 and 0<=j<10}').params, []);
  assert.equal(BasicSet.parse('[n,m,l] -> {[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<l}').dims, ['i', 'k', 'j']);
  // loopy's kernels without loops: `{:}`, `[] -> {[]: }` (a colon with no conditions after it)
  for (const text of ['{:}', '{ : }', '[] -> {[]: }', '{ [] : }', '[n] -> { : }']) {
    const set = BasicSet.parse(text);
    assert.equal([set.dims, set.constraints.length], [[], 0], text);
  }
  assert.equal(BasicSet.parse('{ [i] : }').toString(), '{ [i] }');
});

test('identifiers that are not set variables are parameters: listed ones first, others by appearance', () => {
  assert.equal(BasicSet.parse('{ [i] : i < n + k and i >= m }').params, ['n', 'k', 'm']);
  assert.equal(BasicSet.parse('[m, n] -> { [i] : i < n + k and i >= m }').params, ['m', 'n', 'k']);
  assert.equal(BasicSet.parse('[n] -> { [i] : 0 <= i }').params, ['n']);
});

test('parseConditions: loopy assumptions', () => {
  const a = BasicSet.parseConditions('n>=1 and n mod 16 = 0');
  assert.equal([a.params, a.dims], [['n'], []]);
  for (let n = -40; n <= 40; n++) assert.is(a.contains({ n }), n >= 1 && n % 16 === 0);
  assert.equal(BasicSet.parseConditions('m > n', ['n', 'k']).params, ['n', 'k', 'm']);
  assert.equal(BasicSet.parseConditions('').constraints, []);
  assert.equal(BasicSet.parseConditions('n > 0').toString(), '[n] -> { : n > 0 }');
});

test('printing reads like ISL and parses back to the same set', () => {
  assert.is(BasicSet.parse('{ [i]: 0<=i<n }').toString(), '[n] -> { [i] : 0 <= i < n }');
  assert.is(BasicSet.parse('{ [i,j]: 0<=i,j<n }').toString(), '[n] -> { [i, j] : 0 <= i < n and 0 <= j < n }');
  assert.is(BasicSet.parse('{ [i]: 0<=i<16 }').toString(), '{ [i] : 0 <= i <= 15 }');
  assert.is(BasicSet.parse('{ [i]: 0<i<=15 }').toString(), '{ [i] : 0 < i <= 15 }');
  assert.is(BasicSet.parse('{ [i,j]: 0<=j<=i<n }').toString(), '[n] -> { [i, j] : i < n and 0 <= j <= i }');
  assert.is(BasicSet.parse('{ [i,j]: i = j*3 }').toString(), '{ [i, j] : i = 3j }');
  assert.is(BasicSet.parse('{ [i,j]: 2i + 3j = 7 }').toString(), '{ [i, j] : 2i + 3j = 7 }');
  assert.is(BasicSet.parse('{ [i] : (exists l: i = 3*l) }').toString(), '{ [i] : i mod 3 = 0 }');
  assert.is(BasicSet.parse('{ [i] : (i + 1) mod 4 = 2 and i >= 0 }').toString(), '{ [i] : i >= 0 and i mod 4 = 1 }');
  assert.is(BasicSet.parse('{ [i] : i > 3 and i < 2 }').toString(), '{ [i] : false }');
  for (const text of [
    '{ [i, j] : 0 <= i, j < n and i mod 3 = 0 and (i + j) mod 2 = 1 }',
    '{ [i] : 0 <= i and exists l, m: i = 3l + 5m and 0 <= l, m <= 1 }',
    '{ [i, j] : exists (e: 0 <= e <= 3 and 3e <= i + j <= 3e + 1) and 0 <= i, j <= 10 }',
    '[n] -> { [i] : floor(i/2) < n and i >= -n }',
  ]) {
    const set = BasicSet.parse(text);
    const again = BasicSet.parse(set.toString());
    assert.is(again.toString(), set.toString());
    for (const p of box([...set.params, ...set.dims], -3, 12))
      assert.is(again.contains(p), set.contains(p), `${text} at ${JSON.stringify(p)}`);
  }
});

// ---- rejected constructs ---------------------------------------------------------------

/** Offset of the `occurrence`-th appearance of `marked` in `text`, as a whole word if it is one. */
function find(text: string, marked: string, occurrence: number): number {
  const escaped = marked.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const word = /^\w+$/.test(marked) ? `(?<!\\w)${escaped}(?!\\w)` : escaped;
  const hits = [...text.matchAll(new RegExp(word, 'g'))];
  assert.ok(hits.length >= occurrence, `test bug: '${marked}' not in '${text}' ${occurrence} times`);
  return hits[occurrence - 1]!.index!;
}

/**
 * Parsing fails with a LoomError whose message starts with `message`, and whose caret
 * sits under `marked` (its `occurrence`-th appearance in the text).
 */
function rejects(text: string, message: string, marked: string, occurrence = 1, parse = BasicSet.parse): void {
  const start = find(text, marked, occurrence);
  try {
    parse(text);
  } catch (e) {
    assert.instance(e, LoomError);
    const err = e as LoomError;
    assert.ok(
      err.message.startsWith(message),
      `message of ${text}:\n${err.message}\nexpected to start with:\n${message}`,
    );
    assert.equal(
      { start: err.span?.start, end: err.span?.end },
      { start, end: start + Math.max(1, marked.length) },
      `span of ${text}`,
    );
    const lines = err.message.split('\n');
    assert.is(lines[lines.length - 2], `  ${text}`);
    assert.is(lines[lines.length - 1], `  ${' '.repeat(start)}${'^'.repeat(Math.max(1, marked.length))}`);
    return;
  }
  assert.unreachable(`${text} was accepted`);
}

test('multiplication of non-constants', () => {
  rejects('{ [i,j,k] : i = j*k }', 'multiplication of non-constants (j*k) is not affine', 'j*k');
  rejects('{ [i,j] : 0 <= i * (j + 1) }', 'multiplication of non-constants (i * (j + 1)) is not affine', 'i * (j + 1)');
  rejects('{ [i] : 0 <= i*n }', 'multiplication of non-constants (i*n) is not affine', 'i*n');
});

test('disjunction and negation', () => {
  rejects('{ [i] : (i=1) or (i=5) }', "disjunction ('or') is not supported: loop domains must be convex", 'or');
  rejects('{ [i] : i = 1 || i = 5 }', "disjunction ('||', 'or') is not supported", '||');
  rejects('{ [i] : not i = 1 }', "negation ('not') is not supported", 'not');
});

test('comparison operators that are not ISL', () => {
  rejects('{ [i] : i == 3 }', "'==' is not ISL syntax: equality is written with a single '='", '==');
  rejects('{ [i] : i != 3 }', "'!=' (not equal) is not supported", '!=');
  rejects('{ [i] : i > 0 && i < 3 }', "'&&' is not ISL syntax: write 'and'", '&&');
  rejects('{ [i] : i % 3 = 0 }', "'%' is not ISL syntax: write 'mod'", '%');
  rejects('{ [i] : i }', "expected a comparison (<, <=, >, >=, =) after 'i'", 'i', 2);
  rejects('{ [i] : i, i + 1 and i < 3 }', "expected a comparison (<, <=, >, >=, =) after 'i, i + 1'", 'i, i + 1');
  rejects('{ [i] : 0 <= i < }', 'expected an expression, found', '}');
});

test('division and modulus', () => {
  rejects(
    '{ [i] : (i/2) mod 3 = 0 }',
    "division is only allowed inside floor(...) or ceil(...): 'i/2' need not be an integer",
    'i/2',
  );
  rejects('{ [i,j] : 0 <= i/j }', 'division by a non-constant (i/j) is not affine', 'i/j');
  rejects('{ [i] : floor(i/0) = 1 }', "division by zero in 'i/0'", '0');
  rejects('{ [i] : i mod n = 0 }', "the modulus in 'mod' must be a positive integer constant, found 'n'", 'n');
  rejects('{ [i] : i mod -2 = 0 }', "the modulus in 'mod' must be a positive integer constant", '-2');
});

test('characters and brackets', () => {
  rejects('{ [i] : 0 <= i @ 3 }', "unexpected character '@'", '@');
  rejects('{ [i] : (0 <= i }', "unbalanced brackets: found '}' where ')' was expected (to close '(')", '}');
  rejects('{ [i] : 0 <= i) }', "unbalanced brackets: found ')' where '}' was expected (to close '{')", ')');
  rejects('{ [i] : 0 <= i } }', "unbalanced brackets: '}' has no matching opening bracket", '}', 2);
  rejects('{ [i : 0 <= i }', "unbalanced brackets: found '}' where ']' was expected (to close '[')", '}');
  rejects('{ [i] : 0 <= i', "unbalanced brackets: this '{' is never closed", '{');
});

test('structure of a set', () => {
  rejects(
    '{ [i] 0 <= i }',
    "expected ':' between the set variables and the conditions (as in '{ [i] : 0 <= i < n }'), found '0'",
    '0',
  );
  rejects('{ i : 0 <= i }', "expected '[' to start the list of set variables", 'i');
  rejects('[i] : 0 <= i', "expected '->' after the parameter list", ':');
  rejects('[n] -> [i] : 0 <= i', "expected '{' to start the set", '[', 2);
  rejects('{ [i] : 0 <= i } and i < 3', "unexpected text after the end of the set: 'and'", 'and');
  rejects('{ [i] : 0 <= i i < 3 }', "expected 'and' between two conditions, or '}' to end the set, found 'i'", 'i', 3);
  rejects('{ [i] : i < }', 'expected an expression, found', '}');
  rejects('{ [i, 2] : 0 <= i }', "expected a set variable name, found '2'", '2');
  rejects('{ [i, i] : 0 <= i }', "set variable 'i' is listed twice", 'i', 2);
  rejects('[n] -> { [n] : 0 <= n }', "'n' is declared both as a parameter and as a set variable", 'n', 2);
  rejects(
    '{ [i] : exists i: i = 2 }',
    "'i' is already a set variable; an existential variable needs a name of its own",
    'i',
    2,
  );
  rejects('{ [i] : exists l i = 2l }', "expected ':' after the existential variables", 'i', 2);
  rejects(
    '{ [i] : i <= 99999999999999999999 }',
    'integer constant 99999999999999999999 is too large',
    '99999999999999999999',
  );
});

test('parseConditions rejects the same constructs', () => {
  const conditions = (text: string) => BasicSet.parseConditions(text);
  rejects('n >= 1 or n = 0', "disjunction ('or') is not supported", 'or', 1, conditions);
  rejects('n*m >= 1', 'multiplication of non-constants (n*m) is not affine', 'n*m', 1, conditions);
  rejects('n >= 1 m >= 2', "expected 'and' between two conditions: 'm'", 'm', 1, conditions);
});

test.run();
