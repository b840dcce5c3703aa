/**
 * The instruction language loopy's tests write: expressions continued over lines inside
 * brackets, the attributes `nosync_query=` (a match expression, resolved when the kernel is
 * made) and `conflicts=` (loopy's spelling of `conflicts_grp`), and the errors for what is
 * malformed, with carets under the text; `with {...} ... end` blocks (loopy's test_lbm), and
 * substitution rules in the indices of what an instruction writes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError, makeKernel, run } from '@loom/core';
import { testDevices } from './support/devices.ts';

function rejects(build: () => unknown, message: RegExp, caretUnder?: string): void {
  try {
    build();
  } catch (e) {
    assert.instance(e, LoomError);
    assert.match((e as Error).message, message);
    if (caretUnder !== undefined) {
      const lines = (e as Error).message.split('\n');
      const caret = lines[lines.length - 1];
      const source = lines[lines.length - 2];
      assert.is(source.slice(caret.indexOf('^'), caret.lastIndexOf('^') + 1), caretUnder, (e as Error).message);
    }
    return;
  }
  assert.unreachable('expected a LoomError');
}

for (const device of testDevices()) {
  test(`${device.name}: an expression continues over lines while a bracket is open`, async () => {
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      `
      out[i] = (a[i]       # a comment on a continued line
                + 2*a[i]
                + if(i > 1,
                     1.0, 0.0))
      b[
        i] = a[i]
    `,
    );
    const a = new Float32Array([1, 2, 3, 4]);
    const { out, b } = await run(knl, device, { a });
    assert.equal(Array.from(out as Float32Array), [3, 6, 10, 13]);
    assert.equal(Array.from(b as Float32Array), [1, 2, 3, 4]);
  });
}

test('an error in a continued expression points at its line and token', () => {
  rejects(() => makeKernel('{ [i]: 0<=i<n }', 'out[i] = (a[i]\n    + * 2)'), /expected a value, found '\*'/, '*');
  // a bracket never closed: the instruction runs to the end of the text and says so
  rejects(() => makeKernel('{ [i]: 0<=i<n }', 'out[i] = (a[i]\n    + 2'), /expected '\)'/);
});

test('nosync_query: match expressions of ids, tags, writes, reads, inames, with and, or, not, parentheses', () => {
  const knl = makeKernel(
    '{ [i, j]: 0<=i,j<4 }',
    `
    a[i] = 1 {id=wa, tags=first}
    b[i] = a[i] {id=wb}
    c[i, j] = b[i] {id=wc, tags=second}
    d[i] = 2 {id=q1, nosync_query=writes:a or tag:second}
    e[i] = 3 {id=q2, nosync_query=reads:a and not id:q*@local}
    f[i] = 4 {id=q3, nosync_query=(iname:j or id:wa) and not tag:second@global}
    g[i] = 5 {id=q4, nosync_query=in_kernel:loopy_* and id:w?}
  `,
  );
  const nosync = (id: string) => knl.instruction(id).noSyncWith;
  assert.equal(nosync('q1'), ['wa', 'wc']);
  assert.equal(nosync('q2'), ['wb@local']);
  assert.equal(nosync('q3'), ['wa@global']);
  assert.equal(nosync('q4'), ['wa', 'wb', 'wc']);
});

test('nosync_query and conflicts: malformed values are LoomErrors with a caret', () => {
  rejects(
    () => makeKernel('{ [i]: 0<=i<4 }', 'a[i] = 1 {nosync_query=writes:zz}'),
    /nosync_query 'writes:zz' of instruction 'insn' selects no instruction/,
    'writes:zz',
  );
  rejects(
    () => makeKernel('{ [i]: 0<=i<4 }', 'a[i] = 1 {nosync_query=writes:a@nowhere}'),
    /malformed nosync_query 'writes:a@nowhere'/,
    'writes:a@nowhere',
  );
  rejects(
    () => makeKernel('{ [i]: 0<=i<4 }', 'a[i] = 1 {id=x}\nb[i] = 1 {nosync_query=writes:a and}'),
    /the match expression ends too early/,
  );
  rejects(
    () => makeKernel('{ [i]: 0<=i<4 }', 'a[i] = 1 {id=x}\nb[i] = 1 {nosync_query=wrote:a}'),
    /unknown match kind 'wrote:'/,
    'wrote',
  );
  rejects(() => makeKernel('{ [i]: 0<=i<4 }', 'a[i] = 1 {conflicts}'), /attribute 'conflicts' needs a value/);
});

test('conflicts= is conflicts_grp (loopy spells the attribute both ways)', () => {
  const knl = makeKernel('{ [i]: 0<=i<4 }', [
    'a[i] = 1 {id=x, groups=g1}',
    'b[i] = 2 {id=y, conflicts=g1:g2}',
    'c[i] = 3 {id=z, conflicts_grp=g1}',
  ]);
  assert.equal(knl.instruction('y').conflictsWithGroups, ['g1', 'g2']);
  assert.equal(knl.instruction('z').conflictsWithGroups, ['g1']);
});

test('with {...} ... end gives its attributes to every instruction inside (found porting test_lbm)', () => {
  const knl = makeKernel(
    '{ [i, j]: 0<=i<4 and 0<=j<3 }',
    `
    for i
      with {id_prefix=init, tags=setup}
        <> m[0] = a[i]
        m[1] = 2*a[i] {tags=second}
      end
      with {id_prefix=upd, dep=init*, if=i > 0}
        m[0] = m[0] + m[1]
        with {groups=g}
          for j
            b[i, j] = m[0] + j {id=own}
          end
        end
      end
    end
    c[0] = 1 {id=plain}
  `,
  );
  assert.equal(
    knl.instructions.map((x) => x.id),
    ['init', 'init_0', 'upd', 'own', 'plain'],
  );
  assert.equal(knl.instruction('init').tags, ['setup']);
  assert.equal([...knl.instruction('init_0').tags].sort(), ['second', 'setup']);
  // the block's dep (a glob) is every instruction it matches; its if guards all inside it
  assert.equal([...knl.instruction('upd').dependsOn].sort(), ['init', 'init_0']);
  // (m has two writers, so no dependency on upd is guessed: the glob gives what there is)
  assert.equal([...knl.instruction('own').dependsOn].sort(), ['init', 'init_0']);
  assert.equal(knl.instruction('own').groups, ['g']);
  assert.equal(knl.instruction('own').predicates.length, 1);
  assert.equal(knl.instruction('own').withinInames, ['i', 'j']);
  assert.equal(knl.instruction('plain').predicates.length + knl.instruction('plain').tags.length, 0);
  // an inames= block is a for block
  const looped = makeKernel('{ [i]: 0<=i<4 }', 'with {inames=i}\n  out[i] = 1 {id=w}\nend');
  assert.equal(looped.instruction('w').withinInames, ['i']);
});

test('with blocks: what belongs to one instruction is refused there, and the block must close', () => {
  for (const attr of ['id=x', 'priority=2', 'dup=i', 'nosync=x', 'atomic', 'inames=+i']) {
    rejects(
      () => makeKernel('{ [i]: 0<=i<4 }', `with {${attr}}\n  out[i] = 1\nend`),
      /belongs on one instruction, not on a 'with' block/,
    );
  }
  rejects(() => makeKernel('{ [i]: 0<=i<4 }', 'with {tags=a}\n  out[i] = 1'), /'with' block is never closed/);
  rejects(
    () => makeKernel('{ [i]: 0<=i<4 }', 'with {tags=a} extra\n  out[i] = 1\nend'),
    /'with' expects attributes in braces/,
  );
  // a variable named like the keyword is still assigned
  assert.equal(
    makeKernel('{ [i]: 0<=i<4 }', 'with_x[i] = 1').args.map((a) => a.name),
    ['with_x'],
  );
});

for (const device of testDevices()) {
  test(`${device.name}: a rule called in the index of what is written is written out there (found porting test_lbm)`, async () => {
    const knl = makeKernel('{ [ii]: 0<=ii<n-2 }', ['i := ii + 1', 'out[i] = a[i-1] + a[i+1]']);
    // the shape comes from the index itself: out is n-1 long (i up to n-2)
    assert.equal(
      knl.arg('out')!.shape!.map((s) => (s.kind === 'var' ? s.name : s.kind)),
      ['binary'],
    );
    const a = Float32Array.from({ length: 7 }, (_, k) => k * k);
    const { out } = await run(knl, device, { a, n: 7, out: new Float32Array(6).fill(-1) });
    assert.equal(Array.from(out as Float32Array), [-1, 4, 10, 20, 34, 52]);
  });
}

test.run();
