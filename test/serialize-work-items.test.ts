/**
 * Work-group serialization (codegen/serialize-work-items.ts) on hand-made kernel functions:
 * the shapes it makes (regions looped over the work-items, context arrays), and the barriers
 * it refuses. The C device runs the kernels it serializes (test/c-device.test.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call, int, parseExpression as parse, printExpr } from '../packages/core/src/expr/index.ts';
import type { KernelFunction, Stmt } from '../packages/core/src/codegen/ast.ts';
import { serializeWorkItems } from '../packages/core/src/codegen/serialize-work-items.ts';
import { LoomError, type DType } from '../packages/core/src/index.ts';

const lid = (axis: number) => printExpr(call('lid', [int(axis)]));
const assign = (target: string, value: string): Stmt => ({
  kind: 'assign',
  target: parse(target),
  value: parse(value),
  dtype: 'float32',
  atomic: false,
  insnId: 'w',
});
const barrier = (comment: string): Stmt => ({ kind: 'barrier', scope: 'local', comment });

function kernelOf(
  body: readonly Stmt[],
  localSize: readonly (number | string)[],
  names: readonly string[] = [],
): KernelFunction {
  const types = new Map<string, DType>([
    ...['a', 'out', 't', 'acc', 'n', 'k', ...names].map((n): [string, DType] => [n, 'float32']),
  ]);
  return {
    name: 'knl',
    params: [],
    body: { kind: 'block', body },
    // a string is a size known only at launch, in the kernel's value arguments
    localSize: localSize.map((s) => (typeof s === 'number' ? int(s) : parse(s))),
    groupCount: [int(1)],
    types,
  };
}

/** The statements as indented pseudo-C, one line each: what a reader compares. */
function show(s: Stmt, depth = 0): string[] {
  const pad = '  '.repeat(depth);
  switch (s.kind) {
    case 'block':
      return s.body.flatMap((x) => show(x, depth));
    case 'for':
      return [`${pad}for ${s.iname} in ${printExpr(s.lower)}..${printExpr(s.upper)}`, ...show(s.body, depth + 1)];
    case 'if':
      return [`${pad}if ${printExpr(s.condition)}`, ...show(s.then, depth + 1)];
    case 'assign':
      return [`${pad}${printExpr(s.target)} = ${printExpr(s.value)}`];
    case 'code':
      return [`${pad}${s.code}`];
    case 'call':
      return [`${pad}${printExpr(s.call)}`];
    case 'trace':
      return [`${pad}trace ${s.values.map((v) => printExpr(v.value)).join(', ')}`];
    case 'declare':
      return [`${pad}${s.addressSpace} ${s.name}${s.length === undefined ? '' : `[${s.length}]`}`];
    case 'barrier':
      return [`${pad}barrier`];
    case 'fence':
      return [`${pad}fence`];
    case 'comment':
      return [`${pad}// ${s.text}`];
    case 'device-call':
      return [`${pad}${s.function}(${s.args.map(printExpr).join(', ')})`];
    case 'matrix':
      return [`${pad}matrix ${s.op.kind}`];
  }
}

test('a barrier cuts the body into regions, each a loop over the work-items', () => {
  const body: Stmt[] = [
    { kind: 'declare', name: 't', dtype: 'float32', addressSpace: 'local', length: 64 },
    assign(`t[${lid(0)}]`, `a[${lid(0)}]`),
    barrier('for t (use depends on fetch)'),
    assign(`out[${lid(0)}]`, `t[63 - ${lid(0)}]`),
  ];
  const serialized = serializeWorkItems(kernelOf(body, [64]));
  assert.equal(show(serialized.body), [
    'local t[64]',
    'for lid_0 in 0..63',
    '  t[lid_0] = a[lid_0]',
    'for lid_0 in 0..63',
    '  out[lid_0] = t[63 - lid_0]',
  ]);
  assert.is(serialized.types.get('lid_0'), 'int32');
});

test('a work-group sized at launch: the loops run to its expression in the value arguments', () => {
  const body: Stmt[] = [
    { kind: 'declare', name: 't', dtype: 'float32', addressSpace: 'local', length: 64 },
    assign(`t[${lid(0)}]`, `a[${lid(0)}]`),
    barrier('for t (use depends on fetch)'),
    assign(`out[${lid(1)}]`, `t[${lid(0)}]`),
  ];
  // n may be 1 at launch: its axis gets a loop all the same
  const serialized = serializeWorkItems(kernelOf(body, ['n', '(m + 2) // 3']));
  assert.equal(show(serialized.body), [
    'local t[64]',
    'for lid_1 in 0..(m + 2) // 3 - 1',
    '  for lid_0 in 0..n - 1',
    '    t[lid_0] = a[lid_0]',
    'for lid_1 in 0..(m + 2) // 3 - 1',
    '  for lid_0 in 0..n - 1',
    '    out[lid_1] = t[lid_0]',
  ]);
});

test('a private value kept across a barrier needs a copy per work-item: as many as a launch may have, for a work-group sized at launch', () => {
  const body: Stmt[] = [
    { kind: 'declare', name: 'acc', dtype: 'float32', addressSpace: 'private' },
    assign('acc', `a[${lid(0)}]`),
    barrier('for t (x depends on y)'),
    assign(`out[${lid(0)}]`, 'acc'),
  ];
  assert.throws(
    () => serializeWorkItems(kernelOf(body, ['n'])),
    (e: unknown) =>
      e instanceof LoomError &&
      /kernel 'knl': its work-group size is known only at launch \(axis 0: n\), but the private temporary 'acc' must keep a copy per work-item/.test(
        (e as Error).message,
      ),
  );
  // the target states the most work-items a launch may have (the device checks it at launch)
  const serialized = serializeWorkItems(kernelOf(body, ['n', 'm']), { maxWorkGroupSize: 1024 });
  assert.equal(show(serialized.body), [
    'private acc[1024]',
    'for lid_1 in 0..m - 1',
    '  for lid_0 in 0..n - 1',
    '    acc[lid_0 + n*lid_1] = a[lid_0]',
    'for lid_1 in 0..m - 1',
    '  for lid_0 in 0..n - 1',
    '    out[lid_0] = acc[lid_0 + n*lid_1]',
  ]);
});

test('a private value kept across a barrier in a loop gets one copy per work-item; the loop runs once per group', () => {
  const body: Stmt[] = [
    { kind: 'declare', name: 't', dtype: 'float32', addressSpace: 'local', length: 8 },
    { kind: 'declare', name: 'acc', dtype: 'float32', addressSpace: 'private' },
    { kind: 'declare', name: 'tmp', dtype: 'float32', addressSpace: 'private', length: 2 },
    assign('acc', '0'),
    {
      kind: 'for',
      iname: 'k',
      lower: int(0),
      upper: parse('n - 1'),
      body: {
        kind: 'block',
        body: [
          assign(`t[${lid(1)} * 4 + ${lid(0)}]`, `a[k * 8 + ${lid(1)} * 4 + ${lid(0)}]`),
          barrier('for t (update depends on fetch)'),
          assign('acc', `acc + t[${lid(0)}]`),
          barrier('for t (fetch depends on update) across iterations of k'),
        ],
      },
    },
    // used in one region, outside any loop of the group: one copy serves every work-item in turn
    assign('tmp[0]', 'acc'),
    assign(`out[${lid(1)} * 4 + ${lid(0)}]`, 'tmp[0]'),
  ];
  const serialized = serializeWorkItems(kernelOf(body, [4, 2], ['tmp']));
  const item = 'lid_0 + 4*lid_1';
  assert.equal(show(serialized.body), [
    'local t[8]',
    'private acc[8]',
    'private tmp[2]',
    'for lid_1 in 0..1',
    '  for lid_0 in 0..3',
    `    acc[${item}] = 0`,
    'for k in 0..n - 1',
    '  for lid_1 in 0..1',
    '    for lid_0 in 0..3',
    '      t[lid_1*4 + lid_0] = a[k*8 + lid_1*4 + lid_0]',
    '  for lid_1 in 0..1',
    '    for lid_0 in 0..3',
    `      acc[${item}] = acc[${item}] + t[lid_0]`,
    'for lid_1 in 0..1',
    '  for lid_0 in 0..3',
    `    tmp[0] = acc[${item}]`,
    '    out[lid_1*4 + lid_0] = tmp[0]',
  ]);
});

test("a private array kept across regions: element e of the work-items' copies side by side, so the loop over work-items reads consecutive words", () => {
  const body: Stmt[] = [
    { kind: 'declare', name: 'acc', dtype: 'float32', addressSpace: 'private', length: 3 },
    assign('acc[2]', `a[${lid(0)}]`),
    barrier('for t (x depends on y)'),
    assign(`out[${lid(0)}]`, 'acc[2]'),
  ];
  assert.equal(show(serializeWorkItems(kernelOf(body, [4])).body), [
    'private acc[12]',
    'for lid_0 in 0..3',
    '  acc[lid_0 + 8] = a[lid_0]',
    'for lid_0 in 0..3',
    '  out[lid_0] = acc[lid_0 + 8]',
  ]);
});

test('without local axes the body runs once per group, each local id 0', () => {
  const body: Stmt[] = [
    { kind: 'for', iname: 'k', lower: int(0), upper: parse('n - 1'), body: assign(`out[k + ${lid(0)}]`, 'a[k]') },
  ];
  assert.equal(show(serializeWorkItems(kernelOf(body, [1])).body), ['for k in 0..n - 1', '  out[k + 0] = a[k]']);
});

test("a kernel's own name lid_0 is left alone: the loop counter takes another", () => {
  const body: Stmt[] = [assign(`out[${lid(0)}]`, 'lid_0')];
  assert.equal(show(serializeWorkItems(kernelOf(body, [2], ['lid_0'])).body), [
    'for lid_0_1 in 0..1',
    '  out[lid_0_1] = lid_0',
  ]);
});

test('a guard around a barrier that only the group ids decide stays one guard of the group', () => {
  const body: Stmt[] = [
    {
      kind: 'if',
      condition: parse('n > 2'),
      then: {
        kind: 'block',
        body: [
          assign(`t[${lid(0)}]`, '1'),
          barrier('for t (x depends on y)'),
          assign(`out[${lid(0)}]`, `t[1 - ${lid(0)}]`),
        ],
      },
    },
  ];
  assert.equal(show(serializeWorkItems(kernelOf(body, [2])).body), [
    'if n > 2',
    '  for lid_0 in 0..1',
    '    t[lid_0] = 1',
    '  for lid_0 in 0..1',
    '    out[lid_0] = t[1 - lid_0]',
  ]);
});

test('a barrier in a loop or guard that differs between work-items is a LoomError naming the barrier', () => {
  const inLoop: Stmt[] = [
    {
      kind: 'for',
      iname: 'k',
      lower: int(0),
      upper: parse(`${lid(0)} + n`),
      body: { kind: 'block', body: [assign('t[k]', '1'), barrier('for t (use depends on fill)')] },
    },
  ];
  assert.throws(
    () => serializeWorkItems(kernelOf(inLoop, [4])),
    (e: unknown) =>
      e instanceof LoomError && /barrier \(for t \(use depends on fill\)\).*loop.*local id/.test(e.message),
  );
  const inGuard: Stmt[] = [
    { kind: 'declare', name: 'acc', dtype: 'float32', addressSpace: 'private' },
    {
      kind: 'if',
      condition: parse('acc > 0'),
      then: { kind: 'block', body: [assign('t[0]', '1'), barrier('for t (b depends on a)')] },
    },
  ];
  assert.throws(
    () => serializeWorkItems(kernelOf(inGuard, [4])),
    (e: unknown) => e instanceof LoomError && /guard.*private temporary 'acc'/.test(e.message),
  );
});

test("a guard on the work-item counter folds into the loop's bounds, so that a C compiler vectorizes the loop", () => {
  // 128 * gid(0) + lid(0) < n, the guard a group that may reach past n gets
  const body: Stmt[] = [
    {
      kind: 'if',
      condition: parse(`128 * gid(0) <= n - ${lid(0)} - 1`),
      then: assign(`a[128 * gid(0) + ${lid(0)}]`, '0'),
    },
  ];
  // two versions: a whole group (a constant trip count, which a C compiler unrolls and
  // vectorizes without a remainder loop) and the group the domain's end cuts short
  assert.equal(show(serializeWorkItems(kernelOf(body, [128])).body), [
    'if n - 128*gid(0) - 1 >= 127',
    '  for lid_0 in 0..127',
    '    a[128*gid(0) + lid_0] = 0',
    'if not n - 128*gid(0) - 1 >= 127',
    '  for lid_0 in 0..min(127, n - 128*gid(0) - 1)',
    '    a[128*gid(0) + lid_0] = 0',
  ]);
});

test('what a guard says of an outer counter moves out of the inner loop and folds there; what it cannot fold stays', () => {
  const body: Stmt[] = [
    {
      kind: 'if',
      // lid(1) >= 2, an upper bound of lid(0), and 2*lid(0) (a coefficient that is not ±1): kept
      condition: parse(`${lid(1)} >= 2 and ${lid(0)} < n and 2 * ${lid(0)} < n`),
      then: assign(`out[${lid(1)}, ${lid(0)}]`, '1'),
    },
  ];
  assert.equal(show(serializeWorkItems(kernelOf(body, [16, 4])).body).slice(-5), [
    'if not n - 1 >= 15',
    '  for lid_1 in 2..3',
    '    for lid_0 in 0..min(15, n - 1)',
    '      if 2*lid_0 < n',
    '        out[lid_1, lid_0] = 1',
  ]);
});

test('a guard that reads a temporary stays a guard: the work-items may see different values', () => {
  const body: Stmt[] = [
    { kind: 'declare', name: 't', dtype: 'float32', addressSpace: 'local', length: 64 },
    { kind: 'if', condition: parse(`${lid(0)} < t[0]`), then: assign(`out[${lid(0)}]`, '1') },
  ];
  assert.equal(show(serializeWorkItems(kernelOf(body, [64])).body), [
    'local t[64]',
    'for lid_0 in 0..63',
    '  if lid_0 < t[0]',
    '    out[lid_0] = 1',
  ]);
});

test('the work-item loops go inside a loop every work-item runs alike, where consecutive work-items touch consecutive words', () => {
  const body: Stmt[] = [
    {
      kind: 'for',
      iname: 'k',
      lower: int(0),
      upper: int(15),
      body: assign(
        `acc[${lid(0)} + 16*${lid(1)}]`,
        `acc[${lid(0)} + 16*${lid(1)}] + a[16*${lid(1)} + k] * b[16*k + ${lid(0)}]`,
      ),
    },
  ];
  assert.equal(show(serializeWorkItems(kernelOf(body, [16, 16], ['b'])).body), [
    'for k in 0..15',
    '  for lid_1 in 0..15',
    '    for lid_0 in 0..15',
    '      acc[lid_0 + 16*lid_1] = acc[lid_0 + 16*lid_1] + a[16*lid_1 + k]*b[16*k + lid_0]',
  ]);
});

test('the work-item loop stays outside a loop whose body uses a private scalar the work-items take turns with', () => {
  const body: Stmt[] = [
    { kind: 'declare', name: 't', dtype: 'float32', addressSpace: 'private' },
    {
      kind: 'for',
      iname: 'k',
      lower: int(0),
      upper: int(3),
      body: { kind: 'block', body: [assign('t', `a[${lid(0)}, k]`), assign(`out[${lid(0)}, k]`, '2*t')] },
    },
  ];
  assert.equal(show(serializeWorkItems(kernelOf(body, [8])).body), [
    'private t',
    'for lid_0 in 0..7',
    '  for k in 0..3',
    '    t = a[lid_0, k]',
    '    out[lid_0, k] = 2*t',
  ]);
});

test('statements under guards of their own get a work-item loop each, where the guards fold', () => {
  const body: Stmt[] = [
    { kind: 'if', condition: parse(`${lid(0)} < n`), then: assign(`a[${lid(0)}]`, '1') },
    { kind: 'if', condition: parse(`${lid(0)} < m`), then: assign(`out[${lid(0)}]`, '2') },
  ];
  assert.equal(
    show(serializeWorkItems(kernelOf(body, [32], ['m'])).body).filter((line) => line.includes('min')),
    ['  for lid_0 in 0..min(31, n - 1)', '  for lid_0 in 0..min(31, m - 1)'],
  );
});

test('a work-item loop of several statements splits, so that its uniform loop can take the work-items inside', () => {
  const body: Stmt[] = [
    { kind: 'declare', name: 'acc', dtype: 'float32', addressSpace: 'local', length: 16 },
    {
      kind: 'for',
      iname: 'k',
      lower: int(0),
      upper: int(15),
      body: assign(`acc[${lid(0)}]`, `acc[${lid(0)}] + a[k]`),
    },
    assign(`out[${lid(0)}]`, `acc[${lid(0)}]`),
  ];
  assert.equal(show(serializeWorkItems(kernelOf(body, [16])).body), [
    'local acc[16]',
    'for k in 0..15',
    '  for lid_0 in 0..15',
    '    acc[lid_0] = acc[lid_0] + a[k]',
    'for lid_0 in 0..15',
    '  out[lid_0] = acc[lid_0]',
  ]);
});

test.run();
