import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  arraysAccessed,
  children,
  exprEquals,
  freeVariables,
  int,
  isConstant,
  mapChildren,
  mapExpr,
  parseExpression as parse,
  printExpr,
  someExpr,
  substitute,
  variable,
  walk,
  type Expr,
} from '../packages/core/src/expr/index.ts';
import { LoomError } from '../packages/core/src/errors.ts';

const sorted = (s: Iterable<string>) => [...s].sort();

test('children, in source order', () => {
  assert.equal(children(parse('if(c, a[i], 2)')).map(printExpr), ['c', 'a[i]', '2']);
  assert.equal(children(parse('a[i, j + 1]')).map(printExpr), ['i', 'j + 1']);
  assert.equal(children(parse('sum(k, x[k])')).map(printExpr), ['x[k]']);
  assert.equal(children(parse('f(x, 1)')).map(printExpr), ['x', '1']);
  assert.equal(children(parse('float32(x)')).map(printExpr), ['x']);
  assert.equal(children(parse('n')), []);
});

test('mapChildren keeps the node when nothing changes', () => {
  const e = parse('a[i] + sum(k, b[k])*2');
  assert.is(
    mapChildren(e, (c) => c),
    e,
  );
  const swapped = mapChildren(e, (c, i) => (i === 0 ? variable('z') : c));
  assert.is(printExpr(swapped), 'z + sum(k, b[k])*2');
  assert.is((swapped as Extract<Expr, { kind: 'binary' }>).right, (e as Extract<Expr, { kind: 'binary' }>).right);
});

test('walk, mapExpr, someExpr', () => {
  const e = parse('a[i + 1] * if(c, x, sum(k, b[k]))');
  const seen: string[] = [];
  walk(e, (x) => {
    seen.push(x.kind);
    if (x.kind === 'if') return false; // prune
  });
  assert.equal(seen, ['binary', 'subscript', 'binary', 'var', 'int', 'if']);

  const bumped = mapExpr(e, (x) => (x.kind === 'int' ? int(x.value + 1) : x));
  assert.is(printExpr(bumped), 'a[i + 2]*if(c, x, sum(k, b[k]))');
  // Post-order: f sees rebuilt children.
  const depth = mapExpr(parse('f(g(h(1)))'), (x) =>
    x.kind === 'call' ? variable(`${x.fn}_${printExpr(x.args[0] ?? int(0))}`) : x,
  );
  assert.is(printExpr(depth), 'f_g_h_1');

  assert.ok(someExpr(e, (x) => x.kind === 'reduce'));
  assert.not.ok(someExpr(e, (x) => x.kind === 'float'));
});

test('freeVariables: names read, less reduction inames, without array names', () => {
  assert.equal(sorted(freeVariables(parse('a[i, j] + n*x'))), ['i', 'j', 'n', 'x']);
  assert.equal(sorted(freeVariables(parse('sum(k, a[i, k]*b[k, j])'))), ['i', 'j']);
  assert.equal(sorted(freeVariables(parse('k + sum(k, a[k])'))), ['k']); // the outer k is free
  assert.equal(sorted(freeVariables(parse('sum((i, j), a[i, j] + m)'))), ['m']);
  assert.equal(sorted(freeVariables(parse('f(x) + sin(y)'))), ['x', 'y']);
  assert.equal(sorted(freeVariables(parse('2.0*3'))), []);
});

test('arraysAccessed: subscripts by array, inside reductions too', () => {
  const accesses = arraysAccessed(parse('a[i, k] + sum(k, a[i, k]*b[k, j]) + n'));
  assert.equal([...accesses.keys()], ['a', 'b']);
  assert.equal(accesses.get('a')!.map(printExpr), ['a[i, k]', 'a[i, k]']);
  assert.equal(accesses.get('b')!.map(printExpr), ['b[k, j]']);
  assert.equal(arraysAccessed(parse('x + 1')).size, 0);
});

test('substitute replaces free variables (Map or Record)', () => {
  const e = parse('a[i + 1, j]*n');
  assert.is(printExpr(substitute(e, { i: parse('16*io + ii'), n: int(4) })), 'a[16*io + ii + 1, j]*4');
  assert.is(printExpr(substitute(e, new Map([['j', parse('j - 1')]]))), 'a[i + 1, j - 1]*n');
  // Array names and function names are not variables.
  assert.is(printExpr(substitute(parse('a[i] + f(a)'), { a: variable('b'), f: variable('g') })), 'a[i] + f(b)');
  assert.is(substitute(e, {}), e);
  assert.is(substitute(e, { zz: int(0) }), e);
});

test('substitute respects reduction binding', () => {
  const e = parse('k + sum(k, a[k]*x)');
  // The reduction's own k is not the outer k.
  assert.is(printExpr(substitute(e, { k: int(5) })), '5 + sum(k, a[k]*x)');
  assert.is(printExpr(substitute(e, { x: parse('i + 1') })), 'k + sum(k, a[k]*(i + 1))');
  assert.is(
    printExpr(substitute(parse('sum((i, j), a[i, j, l])'), { i: int(0), j: int(0), l: variable('m') })),
    'sum((i, j), a[i, j, m])',
  );
  // Bringing `k` into the reduction over `k` would change the meaning.
  assert.throws(
    () => substitute(e, { x: variable('k') }),
    (err: unknown) => err instanceof LoomError && /capture the reduction iname 'k'/.test((err as Error).message),
  );
  // ... unless the replaced name is not used there.
  const f = parse('x + sum(k, a[k])');
  assert.is(printExpr(substitute(f, { x: variable('k') })), 'k + sum(k, a[k])');
});

test('exprEquals is structural', () => {
  assert.ok(exprEquals(parse('a[i, j] + 1'), parse('a[i,j]+1')));
  assert.not.ok(exprEquals(parse('2'), parse('2.0')));
  assert.not.ok(exprEquals(parse('a - b - c'), parse('a - (b - c)')));
  assert.not.ok(exprEquals(parse('sum(k, a[k])'), parse('product(k, a[k])')));
  assert.not.ok(exprEquals(parse('sum((i, j), a[i, j])'), parse('sum((j, i), a[i, j])')));
  assert.not.ok(exprEquals(parse('-0.0'), parse('0.0')));
  assert.ok(exprEquals(parse('float32(x)'), parse('float32(x)')));
  assert.not.ok(exprEquals(parse('float32(x)'), parse('float64(x)')));
});

test('isConstant', () => {
  for (const text of [
    '1',
    '2.5*3',
    '-(1 + 2)**2',
    'sqrt(2.0)',
    'float32(1)',
    'true and not false',
    'if(1 < 2, 3, 4)',
  ]) {
    assert.ok(isConstant(parse(text)), text);
  }
  for (const text of ['n', 'a[0]', 'sum(k, 1)', 'rule(1)', '1 + i']) {
    assert.not.ok(isConstant(parse(text)), text);
  }
});

test.run();
