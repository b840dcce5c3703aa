import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import {
  add,
  binary,
  bool,
  call,
  cast,
  compare,
  exprEquals,
  float,
  formatFloat,
  ifThenElse,
  int,
  logical,
  mul,
  neg,
  not,
  parseExpression,
  printExpr,
  reduce,
  sub,
  subscript,
  variable,
  type BinaryOp,
  type CompareOp,
  type Expr,
} from '../packages/core/src/expr/index.ts';

const v = variable;
const roundTrip = (text: string) => printExpr(parseExpression(text));

test("loopy's way of printing instructions", () => {
  assert.is(roundTrip('2*a[i]'), '2*a[i]');
  assert.is(roundTrip('a[i,j]'), 'a[i, j]');
  assert.is(roundTrip('a[i,j] + 1'), 'a[i, j] + 1');
  assert.is(roundTrip('sum(k, a[i,k]*b[k,j])'), 'sum(k, a[i, k]*b[k, j])');
  assert.is(roundTrip('if(i>0, a[i-1], 0)'), 'if(i > 0, a[i - 1], 0)');
  assert.is(roundTrip('sqrt(1-a_temp*a_temp)'), 'sqrt(1 - a_temp*a_temp)');
  assert.is(roundTrip('out[16*i_outer + i_inner]'), 'out[16*i_outer + i_inner]');
  assert.is(roundTrip('arr[(i + 1) % n]'), 'arr[(i + 1) % n]');
  assert.is(roundTrip('sum((i, j), a[i, j])'), 'sum((i, j), a[i, j])');
  assert.is(roundTrip('sum([i, j], a[i, j])'), 'sum((i, j), a[i, j])');
  assert.is(roundTrip('c ? a : b'), 'if(c, a, b)');
  assert.is(roundTrip('a^b'), 'a ^ b');
  assert.is(roundTrip('a if c else b'), 'if(c, a, b)');
  assert.is(roundTrip('2.0f*x + 5jf + 1d'), '2.0f*x + 5.0jf + 1.0d');
  assert.is(roundTrip('a[[i*n + j]]'), 'a[[i*n + j]]');
  assert.is(roundTrip('g$two(x)'), 'g$two(x)');
  assert.is(roundTrip('~a & (b | c) ^ d << 2'), '~a & (b | c) ^ d << 2');
  assert.is(roundTrip('float32(x)/2'), 'float32(x) / 2');
});

test('parentheses only where the tree needs them', () => {
  const cases: [Expr, string][] = [
    [sub(v('a'), sub(v('b'), v('c'))), 'a - (b - c)'],
    [sub(sub(v('a'), v('b')), v('c')), 'a - b - c'],
    [add(v('a'), add(v('b'), v('c'))), 'a + (b + c)'],
    [mul(add(v('a'), v('b')), v('c')), '(a + b)*c'],
    [mul(v('a'), mul(v('b'), v('c'))), 'a*(b*c)'],
    [binary('/', v('a'), mul(v('b'), v('c'))), 'a / (b*c)'],
    [binary('//', binary('//', v('a'), v('b')), v('c')), 'a // b // c'],
    [binary('%', v('a'), binary('%', v('b'), v('c'))), 'a % (b % c)'],
    [binary('**', v('a'), binary('**', v('b'), v('c'))), 'a**b**c'],
    [binary('**', binary('**', v('a'), v('b')), v('c')), '(a**b)**c'],
    [binary('**', neg(v('a')), int(2)), '(-a)**2'],
    [binary('**', int(-2), int(2)), '(-2)**2'],
    [neg(binary('**', v('a'), int(2))), '-a**2'],
    [binary('**', v('a'), neg(v('b'))), 'a**-b'],
    [binary('**', v('a'), int(-1)), 'a**-1'],
    [neg(add(v('a'), v('b'))), '-(a + b)'],
    [neg(neg(v('a'))), '-(-a)'],
    [neg(int(1)), '-(1)'],
    [neg(int(-1)), '-(-1)'],
    [mul(neg(v('a')), v('b')), '-a*b'],
    [add(v('i'), int(-1)), 'i + -1'],
    [sub(v('a'), int(-1)), 'a - -1'],
    [mul(int(-1), v('x')), '-1*x'],
    [compare('<', add(v('i'), int(1)), v('n')), 'i + 1 < n'],
    [compare('==', compare('<', v('a'), v('b')), bool(true)), '(a < b) == true'],
    [logical('and', logical('or', v('a'), v('b')), v('c')), '(a or b) and c'],
    [logical('or', logical('and', v('a'), v('b')), v('c')), 'a and b or c'],
    [logical('and', not(v('a')), v('b')), 'not a and b'],
    [not(compare('<', v('a'), v('b'))), 'not a < b'],
    [not(add(v('a'), v('b'))), 'not a + b'],
    [not(logical('and', v('a'), v('b'))), 'not (a and b)'],
    [compare('<', not(v('a')), v('b')), '(not a) < b'],
    [compare('<', v('a'), not(v('b'))), 'a < (not b)'],
    [not(not(v('a'))), 'not not a'],
    [not(compare('<', not(v('a')), v('b'))), 'not (not a) < b'],
    [neg(not(v('a'))), '-(not a)'],
    [add(ifThenElse(v('c'), int(1), int(2)), int(3)), 'if(c, 1, 2) + 3'],
    [mul(int(2), reduce('sum', ['k'], subscript('a', [v('k')]))), '2*sum(k, a[k])'],
    [cast('float64', add(v('x'), int(1))), 'float64(x + 1)'],
    [call('f', []), 'f()'],
  ];
  for (const [e, text] of cases) {
    assert.is(printExpr(e), text);
    assert.ok(exprEquals(parseExpression(text), e), `${text} reads back as printed`);
  }
});

test('a max/min reduction that does not use its iname prints unambiguously', () => {
  assert.is(printExpr(reduce('max', ['k'], subscript('a', [v('k')]))), 'max(k, a[k])');
  assert.is(printExpr(reduce('max', ['k'], v('x'))), 'max([k], x)');
  assert.is(printExpr(reduce('sum', ['k'], v('x'))), 'sum(k, x)');
  assert.is(printExpr(call('max', [v('a'), v('b')])), 'max(a, b)');
});

test('floats print so they read back as floats', () => {
  const cases: [number, string][] = [
    [2, '2.0'],
    [0.5, '0.5'],
    [1e-7, '1e-07'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [123.25, '123.25'],
    [1e15, '1000000000000000.0'],
    [1e16, '1e+16'],
    [1.5e300, '1.5e+300'],
    [-3, '-3.0'],
    [0, '0.0'],
    [-0, '-0.0'],
    [0.1, '0.1'],
    [1 / 3, '0.3333333333333333'],
    [5e-324, '5e-324'],
  ];
  for (const [value, text] of cases) {
    assert.is(formatFloat(value), text);
    const back = parseExpression(text);
    assert.ok(exprEquals(back, float(value)), `${text} reads back as float(${value})`);
  }
  assert.is(printExpr(float(2)), '2.0');
  assert.is(printExpr(int(2)), '2');
  assert.is(printExpr(mul(float(2), subscript('a', [v('i')]))), '2.0*a[i]');
});

// The property: printing then parsing gives back the same tree, for random trees.

const NAMES = ['i', 'j', 'k', 'n', 'x', 'acc_1', 'e', 'end', 'mod'];
const ARRAYS = ['a', 'b', 'out'];
const BINARY_OPS: BinaryOp[] = ['+', '-', '*', '/', '//', '%', '**'];
const COMPARE_OPS: CompareOp[] = ['==', '!=', '<', '<=', '>', '>='];

const name = fc.constantFrom(...NAMES);
const leaf: fc.Arbitrary<Expr> = fc.oneof(
  fc.integer({ min: -20, max: 1_000_000 }).map(int),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(float),
  fc.boolean().map(bool),
  name.map(variable),
);

const { expr } = fc.letrec<{ expr: Expr }>((tie) => {
  const e = tie('expr');
  return {
    expr: fc.oneof(
      { maxDepth: 5, depthIdentifier: 'expr' },
      { arbitrary: leaf, weight: 4 },
      fc.tuple(fc.constantFrom(...BINARY_OPS), e, e).map(([op, l, r]) => binary(op, l, r)),
      fc.tuple(fc.constantFrom(...COMPARE_OPS), e, e).map(([op, l, r]) => compare(op, l, r)),
      fc.tuple(fc.constantFrom('and' as const, 'or' as const), e, e).map(([op, l, r]) => logical(op, l, r)),
      e.map(neg),
      e.map(not),
      fc.tuple(e, e, e).map(([c, a, b]) => ifThenElse(c, a, b)),
      fc
        .tuple(fc.constantFrom(...ARRAYS), fc.array(e, { minLength: 1, maxLength: 3 }))
        .map(([a, ix]) => subscript(a, ix)),
      // Calls whose reading is unambiguous: known functions at their arity, other names
      // at any, max/min with other than two arguments (two could read as a reduction).
      e.map((x) => call('sin', [x])),
      fc.tuple(e, e).map(([y, x]) => call('atan2', [y, x])),
      fc
        .tuple(fc.constantFrom('max', 'min'), fc.array(e, { minLength: 3, maxLength: 3 }))
        .map(([f, args]) => call(f, args)),
      fc.tuple(fc.constantFrom('f', 'rule_2'), fc.array(e, { maxLength: 3 })).map(([f, args]) => call(f, args)),
      fc.tuple(fc.constantFrom('float32', 'int64'), e).map(([t, x]) => cast(t, x)),
      fc
        .tuple(
          fc.constantFrom('sum' as const, 'product' as const, 'max' as const, 'min' as const),
          fc.uniqueArray(name, { minLength: 1, maxLength: 3 }),
          e,
        )
        .map(([op, inames, body]) => reduce(op, inames, body)),
    ),
  };
});

test('property: parseExpression(printExpr(e)) equals e', () => {
  fc.assert(
    fc.property(expr, (e) => {
      const text = printExpr(e);
      const back = parseExpression(text);
      if (!exprEquals(back, e)) throw new Error(`${text} read back as ${printExpr(back)}`);
    }),
    { numRuns: 3000 },
  );
});

test('property: printing is stable under a round trip of the text', () => {
  fc.assert(
    fc.property(expr, (e) => {
      const text = printExpr(e);
      assert.is(printExpr(parseExpression(text)), text);
    }),
    { numRuns: 500 },
  );
});

test.run();
