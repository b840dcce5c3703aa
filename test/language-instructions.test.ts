/**
 * The instruction language loopy's tests write: expressions continued over lines inside
 * brackets, the attributes `nosync_query=` (a match expression, resolved when the kernel is
 * made) and `conflicts=` (loopy's spelling of `conflicts_grp`), and the errors for what is
 * malformed, with carets under the text.
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

test.run();
