import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  add,
  fromLinear,
  int,
  mul,
  neg,
  parseExpression as parse,
  printExpr,
  simplify,
  sub,
  toLinear,
  variable,
} from '../packages/core/src/expr/index.ts';
import { Linear } from '../packages/core/src/linear.ts';

const linear = (text: string) => toLinear(parse(text));
const simplified = (text: string, options?: Parameters<typeof simplify>[1]) =>
  printExpr(simplify(parse(text), options));

test('toLinear: sums, differences, negations and integer multiples', () => {
  assert.ok(linear('16*i_outer + i_inner')!.equals(Linear.of({ i_outer: 16, i_inner: 1 })));
  assert.ok(linear('n - 1')!.equals(Linear.of({ n: 1 }, -1)));
  assert.ok(linear('-(i - j)*3 + 2')!.equals(Linear.of({ i: -3, j: 3 }, 2)));
  assert.ok(linear('2*(i + 1) - 2*i')!.equals(Linear.constant(2)));
  assert.ok(linear('i*4')!.equals(Linear.of({ i: 4 })));
  assert.ok(linear('(2*3)*i')!.equals(Linear.of({ i: 6 })));
  assert.ok(linear('i + -1')!.equals(Linear.of({ i: 1 }, -1)));
  assert.ok(linear('7')!.equals(Linear.constant(7)));
  // Constant sub-expressions are evaluated with integer (Python) semantics.
  assert.ok(linear('7 // 2 + i')!.equals(Linear.of({ i: 1 }, 3)));
  assert.ok(linear('-7 // 2')!.equals(Linear.constant(-4)));
  assert.ok(linear('-7 % 3')!.equals(Linear.constant(2)));
  assert.ok(linear('2**10')!.equals(Linear.constant(1024)));
});

test('toLinear: what is not affine', () => {
  for (const text of [
    'n*i', // the product of two variables
    'n*(i + 1)',
    'i // 2',
    'i % 4',
    'i / 2',
    '6 / 3', // a true division
    '1 // 0',
    'i + 1.0', // floats
    '2.0*i',
    'a[i]',
    'sin(i)',
    'if(c, 1, 2)',
    'i < n',
    'sum(k, k)',
    'int32(i)',
    '2**-1',
    '2**100', // beyond safe integers
  ]) {
    assert.is(linear(text), undefined, text);
  }
});

test('fromLinear: readable, variables in order, constant last', () => {
  const show = (l: Linear, order?: string[]) => printExpr(fromLinear(l, order));
  assert.is(show(Linear.of({ n: 1 }, -1)), 'n - 1');
  assert.is(show(Linear.of({ i: 16, j: 1 })), '16*i + j');
  assert.is(show(Linear.of({ i: 16, j: 1 }), ['j', 'i']), 'j + 16*i');
  assert.is(show(Linear.of({ i: 1, j: -1, k: -2 }, 3)), 'i - j - 2*k + 3');
  assert.is(show(Linear.of({ i: -1, n: 1 })), '-i + n');
  assert.is(show(Linear.of({ i: -1, n: 1 }), ['n']), 'n - i');
  assert.is(show(Linear.of({ i: -3 }, -1)), '-3*i - 1');
  assert.is(show(Linear.constant(0)), '0');
  assert.is(show(Linear.constant(-5)), '-5');
  assert.is(show(Linear.zero), '0');
  // Built from plain nodes, so it reads back.
  assert.equal(fromLinear(Linear.of({ n: 1 }, -1)), sub(variable('n'), int(1)));
  assert.equal(fromLinear(Linear.of({ i: -1 })), neg(variable('i')));
  assert.equal(fromLinear(Linear.of({ i: 2, j: 1 }, 1)), add(add(mul(int(2), variable('i')), variable('j')), int(1)));
});

test('toLinear and fromLinear are inverse on linear forms', () => {
  for (const l of [
    Linear.of({ a: 3, b: -1 }, 7),
    Linear.of({ x: -1 }, -1),
    Linear.constant(42),
    Linear.of({ p: 5, q: -5, r: 1 }),
  ]) {
    assert.ok(toLinear(fromLinear(l))!.equals(l), l.toString());
  }
});

test('simplify: integer constants fold, floats stay as written', () => {
  assert.is(simplified('2 + 3'), '5');
  assert.is(simplified('(2 + 3)*x'), '5*x');
  assert.is(simplified('7 // 2 + 7 % 2'), '4');
  assert.is(simplified('-(3)'), '-3');
  assert.is(simplified('1 < 2 and not false'), 'true');
  assert.is(simplified('if(2 > 3, a, b)'), 'b');
  assert.is(simplified('x*1 + 1*y'), 'x + y');
  // Float arithmetic is never folded: float32 and float64 round differently.
  assert.is(simplified('0.1 + 0.2'), '0.1 + 0.2');
  assert.is(simplified('x + 1 - 1'), 'x + 1 - 1'); // x may be a float
  assert.is(simplified('x + 0'), 'x + 0'); // -0.0 + 0 is 0.0
  assert.is(simplified('6 / 3'), '6 / 3'); // a true division
  assert.is(simplified('1 // 0'), '1 // 0');
  assert.is(simplified('(a < b)*1'), '(a < b)*1'); // a bool times 1 is an int
  // a constant truth value next to a condition: `and true`, `or false` go, `and false`, `or true` decide
  assert.is(simplified('a < b and 1 < 2'), 'a < b');
  assert.is(simplified('2 < 1 or a < b'), 'a < b');
  assert.is(simplified('a < b and 2 < 1'), 'false');
  assert.is(simplified('1 < 2 or a < b'), 'true');
  assert.is(simplified('x and true'), 'x and true'); // x may be a number, not a truth value
});

test('simplify: multiples of the divisor leave an integer // and %', () => {
  assert.is(simplified('a[(4*i + 1) // 4, (4*i + 1) % 4]'), 'a[i, 1]');
  assert.is(simplified('a[(64*g + 4*l + 6) // 4]'), 'a[16*g + l + 1]');
  assert.is(simplified('a[(64*g + 4*l + 6) % 4]'), 'a[2]');
  assert.is(simplified('a[(8*k + j) // 4]'), 'a[(8*k + j) // 4]'); // j is not a multiple of 4: stays whole
  assert.is(simplified('a[(4*i - 1) // 4, (4*i - 1) % 4]'), 'a[i - 1, 3]'); // floor division: -1 // 4 is -1
  assert.is(simplified('a[(2*i + 1) // 4]'), 'a[(2*i + 1) // 4]'); // nothing divides out
  // divisions in Q are integers held whole (a joined iname's parts): (4*(t % 8) + 1) // 4 is t % 8
  assert.is(simplified('a[(32*(t // 8) + 4*(t % 8) + 1) // 4]'), 'a[8*(t // 8) + t % 8]');
  assert.is(simplified('a[(32*(t // 8) + 4*(t % 8) + 1) % 4]'), 'a[1]');
  assert.is(simplified('a[(4*(t % 8) + 2*(t // 8)) // 4]'), 'a[(4*(t % 8) + 2*(t // 8)) // 4]'); // 2*(t // 8) is no multiple
  assert.is(simplified('(4*x + 1) // 4'), '(4*x + 1) // 4'); // x may be a float
});

test('simplify: affine normalization of indices', () => {
  assert.is(simplified('a[i + 1 - 1]'), 'a[i]');
  assert.is(simplified('a[2*(i + 1) - 2, j]'), 'a[2*i, j]');
  assert.is(simplified('a[16*(i_outer) + i_inner + 0]'), 'a[16*i_outer + i_inner]');
  assert.is(simplified('a[i + n - i]'), 'a[n]');
  assert.is(simplified('out[i] + x + 1 - 1'), 'out[i] + x + 1 - 1');
  // Not affine as a whole: the parts are normalized.
  assert.is(simplified('a[n*(i + 1 - 1) + (j + 0)]'), 'a[n*i + j]');
  assert.is(simplified('a[(i + 2 - 2) // 2]'), 'a[i // 2]');
  // The integer context ends at a true division or a call.
  assert.is(simplified('a[floor((x + 1 - 1) / 2)]'), 'a[floor((x + 1 - 1) / 2)]');
  // Callers who know their integers say so.
  assert.is(simplified('i + 1 - 1', { isInteger: (n) => n === 'i' }), 'i');
  assert.is(simplified('x + 1 - 1', { isInteger: (n) => n === 'i' }), 'x + 1 - 1');
  assert.is(simplified('n*1*m', { integer: true }), 'n*m');
  assert.is(simplified('(n + 15) - 15', { integer: true }), 'n');
});

test('simplify returns the same node when nothing changes', () => {
  const e = parse('a[16*i + j] + sin(x)');
  assert.is(simplify(e), e);
});

test.run();
