/** makeKernel reads loopy's textual syntax and infers what was not said. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeKernel, LoomError, StaticValueFindingError, printExpr, valueArg, globalArg } from '@loom/core';

test('arrays are global arguments, free names are values, outputs are what is written', () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = alpha*a[i]');
  assert.equal(
    knl.args.map((a) => [a.name, a.kind, a.isInput, a.isOutput]),
    [
      ['a', 'global', true, false],
      ['alpha', 'value', true, false],
      ['n', 'value', true, false],
      ['out', 'global', false, true],
    ],
  );
});

test('shapes come from the access footprint under the assumptions', () => {
  const knl = makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i, j+1] = a[2*i, j]', undefined, {
    assumptions: 'n>=1 and m>=1',
  });
  assert.equal(knl.arg('a')!.shape!.map(printExpr), ['2*n - 1', 'm']);
  assert.equal(knl.arg('out')!.shape!.map(printExpr), ['n', 'm + 1']);
});

test('a static maximum is not found without assumptions, as the tutorial says', () => {
  const build = (assumptions?: string) =>
    makeKernel('{ [i]: 0<=i<n }', 'out[i] = 5\nout[0] = 6', undefined, { assumptions });
  try {
    build();
    assert.unreachable('should have thrown');
  } catch (e) {
    assert.instance(e, StaticValueFindingError);
    assert.match(
      (e as Error).message,
      "a static maximum was not found for PwAff '[n] -> { [(1)] : n <= 1; [(n)] : n >= 2 }'",
    );
    assert.match((e as Error).message, "shape axis 0 of argument 'out'");
  }
  assert.equal(build('n>=1').arg('out')!.shape!.map(printExpr), ['n']);
});

test('instruction ids: explicit, prefixed, and generated like loopy', () => {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    `
    a[i] = 1 {id=first}
    b[i] = 2
    c[i] = 3 {id_prefix=fill}
    d[i] = 4
  `,
  );
  assert.equal(
    knl.instructions.map((i) => i.id),
    ['first', 'insn', 'fill', 'insn_0'],
  );
});

test('every attribute of the reference is read', () => {
  const knl = makeKernel(
    ['{ [i]: 0<=i<n }', '{ [j]: 0<=j<n }'],
    `
    <> flag = i > 2 {id=f}
    a[i] = 1 {id=w1, priority=3, tags=hot:fast, groups=g1, conflicts_grp=g2, if=flag, nosync=w2}
    a[i] = a[i] + 1 {id=w2, dep=w1:f, inames=+j}
    b[i] = 0 {id=w3, dep=*w2}
    c[0] = 1 {id=at, atomic}
  `,
  );
  const w1 = knl.instruction('w1');
  assert.is(w1.priority, 3);
  assert.equal(w1.tags, ['hot', 'fast']);
  assert.equal(w1.groups, ['g1']);
  assert.equal(w1.conflictsWithGroups, ['g2']);
  assert.equal(w1.noSyncWith, ['w2']);
  assert.equal(w1.predicates.map(printExpr), ['flag']);
  assert.equal(knl.instruction('w2').withinInames, ['i', 'j']);
  assert.equal(knl.instruction('w2').dependsOn, ['f', 'w1']);
  assert.equal(knl.instruction('w3').dependsOn, ['w2']);
  assert.ok(knl.instruction('at').atomic);
});

test('dep wildcards match several ids', () => {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    `
    a[i] = 1 {id=init_a}
    b[i] = 1 {id=init_b}
    c[i] = a[i] + b[i] {id=use, dep=init_*}
  `,
  );
  assert.equal(knl.instruction('use').dependsOn, ['init_a', 'init_b']);
});

test('the single-writer heuristic adds dependencies; dep=* turns it off', () => {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    `
    <> t = a[i] {id=w}
    out[i] = t {id=r}
    out2[i] = t {id=r2, dep=*}
  `,
  );
  assert.equal(knl.instruction('r').dependsOn, ['w']);
  assert.equal(knl.instruction('r2').dependsOn, []);
});

test('for/end and if/else blocks set inames and predicates', () => {
  const knl = makeKernel(
    '{ [i,j]: 0<=i,j<n }',
    `
    for i
      <> s = 0 {id=init}
      for j
        if j > i
          upper[i, j] = 1
        else
          upper[i, j] = 0
        end
      end
    end
  `,
  );
  const ids = knl.instructions.map((i) => i.id);
  assert.equal(ids.length, 3);
  assert.equal(knl.instruction('init').withinInames, ['i']);
  assert.equal(knl.instructions[1].predicates.map(printExpr), ['j > i']);
  assert.equal(knl.instructions[2].predicates.map(printExpr), ['not j > i']);
});

test('temporaries declared with <> and <type>; array temporaries get constant shapes', () => {
  const knl = makeKernel(
    '{ [i,k]: 0<=i<n and 0<=k<4 }',
    `
    <float32> w[k] = k*0.5 {id=w}
    <> acc = sum(k, w[k]*a[i]) {id=acc}
    out[i] = acc
  `,
  );
  assert.is(knl.temporaries.get('w')!.dtype, 'float32');
  assert.equal(knl.temporaries.get('w')!.shape.map(printExpr), ['4']);
  assert.is(knl.temporaries.get('acc')!.dtype, undefined);
});

test('substitution rules are kept and expanded where used', () => {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    `
    sq(x) := x*x
    out[i] = sq(a[i]) + 1
  `,
  );
  assert.ok(knl.substitutions.has('sq'));
  assert.equal(knl.arg('a')!.shape!.map(printExpr), ['n']);
});

test('dup= gives an instruction its own copy of an iname', () => {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    `
    a[i] = i {id=w}
    b[i] = 2*a[i] {id=r, dup=i->i2}
  `,
  );
  assert.equal(knl.instruction('r').withinInames, ['i2']);
  assert.ok(knl.inames.includes('i2'));
});

test('explicit arguments: kinds, dtypes, shapes; unknown names are errors without "..."', () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i]', [
    globalArg('a', { dtype: 'float32', shape: ['n'] }),
    globalArg('out', { dtype: 'float32', shape: ['n'] }),
    valueArg('n', 'int32'),
  ]);
  assert.is(knl.arg('a')!.dtype, 'float32');
  assert.throws(
    () => makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] + b[i]', [globalArg('a'), globalArg('out'), valueArg('n')]),
    (e: unknown) =>
      e instanceof LoomError && /unknown variable 'b'/.test((e as Error).message) && /\^/.test((e as Error).message),
  );
});

test('triangular, mod and exists domains are accepted', () => {
  const tri = makeKernel('{ [i,j]: 0<=j<=i<n }', 'out[i,j] = a[i]');
  assert.equal(tri.arg('out')!.shape!.map(printExpr), ['n', 'n']);
  const strided = makeKernel('{ [i]: 0<=i<n and i mod 3 = 0 }', 'out[i] = 1', undefined, { assumptions: 'n>=1' });
  assert.ok(strided.arg('out')!.shape!.length === 1);
  const ex = makeKernel('{ [i]: 0<=i<n and (exists l: i = 2*l) }', 'out[i] = 1', undefined, { assumptions: 'n>=1' });
  assert.ok(ex.arg('out')!.shape!.length === 1);
});

test.run();
