/**
 * loopy's match language (transform/match.ts): what each kind of term picks, how `and`,
 * `or`, `not` and parentheses combine, and the errors (with a caret) on bad input.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findInstructions, LoomError, makeKernel, parseMatch, splitIname } from '@loom/core';

const knl = splitIname(
  makeKernel(
    '{[i, j]: 0<=i,j<8}',
    `
  f(x) := 2*x + b[x]
  <> t[i] = a[i] {id=load_a, tags=input}
  out[i, j] = t[i] + f(j) {id=compute, tags=work:heavy}
  other[j] = 0 {id=zero}
`,
  ),
  'j',
  4,
  { within: 'id:compute' },
);
const ids = (within: string | readonly string[]) => findInstructions(knl, within).map((i) => i.id);

test('each kind of term', () => {
  assert.equal(ids('id:load_a'), ['load_a']);
  assert.equal(ids('id:*a*'), ['load_a']);
  assert.equal(ids('tag:input'), ['load_a']);
  assert.equal(ids('tag:h*'), ['compute']);
  assert.equal(ids('writes:t'), ['load_a']);
  assert.equal(ids('writes:o*'), ['compute', 'zero']);
  assert.equal(ids('reads:a'), ['load_a']);
  // a read through a substitution rule counts, and so does the rule
  assert.equal(ids('reads:b'), ['compute']);
  assert.equal(ids('reads:f'), ['compute']);
  assert.equal(ids('iname:j_*'), ['compute']);
  assert.equal(ids('iname:j'), ['zero']);
  assert.equal(ids('in_kernel:loopy_*'), ['load_a', 'compute', 'zero']);
  assert.equal(ids('in_kernel:other'), []);
  // Loom's conveniences: a bare pattern is an id, a list is any of its entries
  assert.equal(ids('zero'), ['zero']);
  assert.equal(ids(['zero', 'tag:input']), ['load_a', 'zero']);
  assert.equal(ids('[lz]*'), ['load_a', 'zero']);
});

test('and, or, not, parentheses and precedence (not, then and, then or)', () => {
  assert.equal(ids('writes:o* and not id:zero'), ['compute']);
  assert.equal(ids('id:zero or tag:input and writes:nothing'), ['zero']);
  assert.equal(ids('(id:zero or tag:input) and writes:t'), ['load_a']);
  assert.equal(ids('not id:zero and not id:compute'), ['load_a']);
  assert.equal(ids('not (id:zero or id:compute)'), ['load_a']);
  assert.equal(ids('not not id:zero'), ['zero']);
  assert.equal(parseMatch('id:a or id:b and not tag:c').kind, 'or');
});

test('bad match expressions are LoomErrors with a caret under the problem', () => {
  const refused = (text: string, message: RegExp, caret: string) =>
    assert.throws(
      () => parseMatch(text),
      (e: unknown) => e instanceof LoomError && message.test(e.message) && e.message.endsWith(caret),
    );
  refused('id:a and foo:b', /unknown match kind 'foo:'/, '  id:a and foo:b\n           ^^^');
  refused('id:a or', /ends too early/, '  id:a or\n         ^');
  refused('id:a b', /expected 'and', 'or' or the end/, '  id:a b\n       ^');
  refused('(id:a or id:b', /'\(' is never closed/, '  (id:a or id:b\n  ^');
  refused('id:a)', /closing parenthesis without an opening one/, '  id:a)\n      ^');
  refused('id:', /'id:' needs a name or pattern/, '  id:\n     ^');
  refused('id:a & id:b', /unexpected character '&'/, '  id:a & id:b\n       ^');
  refused('and id:a', /expected id:.* before 'and'/, '  and id:a\n  ^^^');
  refused('', /empty/, '\n  ^');
  assert.throws(
    () => parseMatch([]),
    (e: unknown) => e instanceof LoomError && /an empty list matches nothing/.test(e.message),
  );
});

test.run();
