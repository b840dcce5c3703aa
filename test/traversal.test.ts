/**
 * The traversal layer: walkScoped over expressions, walkStmts/mapStmts over the
 * program AST's statements, mapKernelExpressions over a kernel's instructions, rules
 * and shapes. The passes built on them are tested through their own tests; these pin
 * down the order, identity and scoping rules the passes rely on.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  int,
  parseExpression as parse,
  printExpr,
  variable,
  walkScoped,
  type Expr,
} from '../packages/core/src/expr/index.ts';
import type { Stmt } from '../packages/core/src/codegen/ast.ts';
import { mapStmts, someStmt, statementsOfKind, walkStmts } from '../packages/core/src/codegen/stmt-visit.ts';
import { mapKernelExpressions } from '../packages/core/src/kernel/rewrite-expressions.ts';
import { globalArg, makeKernel, valueArg } from '../packages/core/src/index.ts';
import { renameInExpr } from '../packages/core/src/kernel/rename.ts';

test('walkScoped tells each node the reduction inames around it', () => {
  const seen: string[] = [];
  walkScoped(
    parse('a[k] + sum(k, b[k] * max(j, c[j, k]))'),
    (x, bound) => {
      if (x.kind === 'subscript') seen.push(`${printExpr(x)}: ${bound.join(',')}`);
    },
    ['i'],
  );
  assert.equal(seen, ['a[k]: i', 'b[k]: i,k', 'c[j, k]: i,k,j']);
});

const program: Stmt = {
  kind: 'block',
  body: [
    { kind: 'declare', name: 't', dtype: 'float32', addressSpace: 'local', length: 4 },
    {
      kind: 'for',
      iname: 'i',
      lower: int(0),
      upper: variable('n'),
      body: {
        kind: 'if',
        condition: parse('i < m'),
        then: {
          kind: 'assign',
          target: parse('out[i]'),
          value: parse('t[i]'),
          dtype: 'float32',
          atomic: false,
          insnId: 'w',
        },
      },
    },
    { kind: 'barrier', scope: 'local' },
  ],
};

test('walkStmts meets names and expressions in source order', () => {
  const seen: string[] = [];
  walkStmts(program, {
    stmt: (s) => void seen.push(s.kind),
    name: (n) => void seen.push(`name ${n}`),
    expr: (e) => void seen.push(printExpr(e)),
  });
  assert.equal(seen, [
    'block',
    'declare',
    'name t',
    'for',
    'name i',
    '0',
    'n',
    'if',
    'i < m',
    'assign',
    'out[i]',
    't[i]',
    'barrier',
  ]);
  assert.equal(
    statementsOfKind(program, 'declare').map((d) => d.name),
    ['t'],
  );
  assert.ok(someStmt(program, (s) => s.kind === 'barrier'));
});

test('mapStmts keeps what does not change, by identity, and rebuilds the rest', () => {
  assert.is(mapStmts(program, { expr: (e) => e, name: (n) => n }), program);
  const renamed = mapStmts(program, { name: (n) => `${n}_`, expr: (e) => renameInExpr(e, new Map([['i', 'i_']])) });
  const loopOf = (s: Stmt) => statementsOfKind(s, 'for')[0];
  assert.is(loopOf(renamed).iname, 'i_');
  assert.is(loopOf(renamed).upper, loopOf(program).upper, 'an expression that does not change is the same node');
  assert.is(statementsOfKind(renamed, 'barrier')[0], statementsOfKind(program, 'barrier')[0]);
  const names: string[] = [];
  walkStmts(renamed, { name: (n) => void names.push(n) });
  assert.equal(names, ['t_', 'i_']);
});

test('mapKernelExpressions: assignee indices by default, the whole assignee or none on request', () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] + i {id=w, if=i}');
  const tag = (e: Expr): Expr =>
    e.kind === 'var' && e.name === 'i'
      ? variable('ii')
      : e.kind === 'subscript' && e.array === 'out'
        ? { ...e, array: 'out2' }
        : e;
  const deep = (e: Expr) => renameInExpr(tag(e), new Map([['i', 'ii']]));
  const show = (k: typeof knl) => {
    const insn = k.instruction('w');
    return [...insn.assignees, insn.expression, ...insn.predicates].map((e) => printExpr(e!));
  };
  assert.equal(show(mapKernelExpressions(knl, deep, { what: 'test' })), ['out[ii]', 'a[ii] + ii', 'ii']);
  assert.equal(show(mapKernelExpressions(knl, deep, { what: 'test', assignee: 'whole' })), [
    'out2[ii]',
    'a[ii] + ii',
    'ii',
  ]);
  assert.equal(show(mapKernelExpressions(knl, deep, { what: 'test', assignee: 'none' })), [
    'out[i]',
    'a[ii] + ii',
    'ii',
  ]);
});

test('mapKernelExpressions rewrites rules and, when asked, shapes', () => {
  let knl = makeKernel(
    '{ [i]: 0<=i<n }',
    ['f(x) := x + i', 'out[i] = f(a[i])'],
    [
      globalArg('a', { dtype: 'float32', shape: ['n'] }),
      globalArg('out', { dtype: 'float32', shape: ['n'] }),
      valueArg('n', 'int32'),
    ],
  );
  const rename = (e: Expr) =>
    renameInExpr(
      e,
      new Map([
        ['i', 'j'],
        ['n', 'm'],
      ]),
    );
  knl = mapKernelExpressions(knl, rename, { what: 'test', shapes: (e) => (e.kind === 'var' ? int(8) : e) });
  assert.is(printExpr(knl.substitutions.get('f')!.expression), 'x + j');
  assert.equal(
    knl.args.filter((a) => a.shape).map((a) => a.shape!.map(printExpr).join()),
    ['8', '8'],
  );
});

test.run();
