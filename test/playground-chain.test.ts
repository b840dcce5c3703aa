/**
 * The playground's chain parser (examples/playground/chain.ts): the builder's syntax read as
 * data — calls of known verbs with JSON-like literals — giving exactly the kernel the same
 * chain gives written in TypeScript, and refusing everything else with a caret.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError } from '@loom/core';
import { kernel } from '@loom/dsl';
import { applyChain, parseChain, parseLiteral, type Builder } from '../examples/playground/chain.ts';
import { decodeState, encodeState, type PageState } from '../examples/playground/url-state.ts';

const double = (): Builder => kernel('{ [i]: 0<=i<n }' as string, 'out[i] = 2*a[i]' as string);

function refusal(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    assert.instance(error, LoomError);
    return (error as Error).message;
  }
  throw new assert.Assertion({
    message: 'expected a LoomError',
    generated: false,
    operator: 'throws',
    expects: 'LoomError',
    actual: 'nothing thrown',
  });
}

test('a chain is a list of calls with their literal arguments', () => {
  const calls = parseChain(`
    .split('i', 128, { outer: "g.0", inner: 'l.0', slabs: [0, 1] })   // comments are blanks
    .dtypes({ a: 'float32', }) .saveReload()`);
  assert.equal(
    calls.map(({ verb, args }) => ({ verb, args })),
    [
      { verb: 'split', args: ['i', 128, { outer: 'g.0', inner: 'l.0', slabs: [0, 1] }] },
      { verb: 'dtypes', args: [{ a: 'float32' }] },
      { verb: 'saveReload', args: [] },
    ],
  );
});

test('literals: strings with escapes, numbers, true, false, null, nesting', () => {
  assert.equal(parseLiteral(String.raw`['it\'s', "a\tb\n", -1.5e3, 0, true, false, null, { 'quoted key': [[]] }]`), [
    "it's",
    'a\tb\n',
    -1500,
    0,
    true,
    false,
    null,
    { 'quoted key': [[]] },
  ]);
  assert.equal(parseLiteral('{}'), {});
});

test('a key named __proto__ is an own key, not a prototype', () => {
  const value = parseLiteral('{ __proto__: { polluted: true } }') as Record<string, unknown>;
  assert.ok(Object.hasOwn(value, '__proto__'));
  assert.is(Object.getPrototypeOf(value), Object.prototype);
  assert.is(({} as Record<string, unknown>).polluted, undefined);
});

test('the chain gives the kernel the same chain gives in TypeScript', () => {
  const text = ".split('i', 128, { outer: 'g.0', inner: 'l.0' }) .dtypes({ a: 'float32' })";
  const expected = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]')
    .split('i', 128, { outer: 'g.0', inner: 'l.0' })
    .dtypes({ a: 'float32' });
  assert.is(applyChain(double(), text).toString(), expected.toString());
});

test('tile, prefetch and prioritize, as the README writes matmul', () => {
  const matmul = (): Builder =>
    kernel('{ [i,j,k]: 0<=i<n and 0<=j<m and 0<=k<l }' as string, 'c[i, j] = sum(k, a[i, k]*b[k, j])' as string);
  const chained = applyChain(
    matmul(),
    `
    .tile('i', 'j', 16, 16, { outer: 'g', inner: 'l' })
    .split('k', 16)
    .prefetch('a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' })
    .prioritize('k_outer,k_inner')`,
  );
  const written = matmul()
    .tile('i', 'j', 16, 16, { outer: 'g', inner: 'l' })
    .split('k', 16)
    .prefetch('a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' })
    .prioritize('k_outer,k_inner');
  assert.is(chained.toString(), written.toString());
});

test('only known verbs: anything else of the builder or of JavaScript is refused', () => {
  for (const verb of ['run', 'code', 'apply', 'args', 'constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    assert.match(
      refusal(() => parseChain(`.${verb}()`)),
      `'${verb}' is not a transformation`,
    );
  }
});

test('no expression is evaluated: names, calls and operators are not values', () => {
  assert.match(
    refusal(() => parseChain('.split(i, 4)')),
    "'i' is not a value: write strings in quotes",
  );
  assert.match(
    refusal(() => parseChain(".split('i', alert(1))")),
    "'alert' is not a value",
  );
  assert.match(
    refusal(() => parseChain(".split('i', 2 + 2)")),
    "expected ')'",
  );
  assert.match(
    refusal(() => parseChain(".split('i', `4`)")),
    'expected a value',
  );
  assert.match(
    refusal(() => parseChain("kernel.split('i', 4)")),
    "expected '.'",
  );
});

test('mistakes are shown with a caret under them', () => {
  const message = refusal(() => parseChain(".split('i', 128)\n.splt('i_inner', 4)"));
  assert.match(message, "'splt' is not a transformation");
  assert.match(message, /\.splt\('i_inner', 4\)\n\s*\^\^\^\^$/);
  assert.match(
    refusal(() => parseChain(".split('i', 128, 1, 2)")),
    '.split() takes at most 3 arguments, got 4',
  );
  assert.match(
    refusal(() => parseLiteral("'open")),
    'unterminated string',
  );
  assert.match(
    refusal(() => parseLiteral(String.raw`'\x41'`)),
    'unknown escape',
  );
  assert.match(
    refusal(() => parseLiteral('[1, 2] 3')),
    'expected the end of the text',
  );
});

test("a verb's own error points at the verb in the chain", () => {
  const message = refusal(() => applyChain(double(), ".split('i', 4)\n.tag({ q: 'l.0' })"));
  assert.match(message, /^\.tag\(\): /);
  assert.match(message, /\.tag\(\{ q: 'l\.0' \}\)\n\s*\^\^\^$/);
});

test('text past the limits is refused without a deep recursion', () => {
  assert.match(
    refusal(() => parseLiteral('['.repeat(100) + ']'.repeat(100))),
    'literals nest at most 16 deep',
  );
  assert.match(
    refusal(() => parseChain(' '.repeat(20_001))),
    'too long',
  );
});

const STATE: PageState = {
  tab: 'computation',
  preset: 'double, split over work-groups',
  domain: '{ [i]: 0<=i<n }',
  instructions: 'out[i] = 2*a[i] + 1 // ünïcode ✓',
  chain: ".split('i', 128)\n.dtypes({ a: 'float32' })",
  values: '{ n: 1000 }',
  payload: '(x, y) => x * y',
  shape: '[4, 250]',
  computation: { op: 'scan', predicate: 'sum', dtype: 'int32', sizes: '[4, 1000]' },
};

test('the URL state: a versioned, deflated, base64url hash that reads back exactly', async () => {
  const hash = await encodeState(STATE);
  assert.match(hash, /^#v1\.[A-Za-z0-9_-]+$/);
  assert.equal(await decodeState(hash), STATE);
});

test('a malformed URL state is a LoomError that says what is wrong', async () => {
  const refused = async (hash: string): Promise<string> => {
    try {
      await decodeState(hash);
    } catch (error) {
      assert.instance(error, LoomError);
      return (error as Error).message;
    }
    throw new assert.Assertion({
      message: `${hash} was read`,
      generated: false,
      operator: 'throws',
      expects: 'LoomError',
      actual: 'a state',
    });
  };
  assert.match(await refused('#v0.abc'), "does not start with 'v1.'");
  assert.match(await refused('#v1.@@@'), 'damaged');
  assert.match(await refused((await encodeState(STATE)).slice(0, 30)), 'damaged');
  assert.match(await refused(await encodeState({ ...STATE, tab: 'other' as PageState['tab'] })), "tab 'other'");
  assert.match(
    await refused(await encodeState({ ...STATE, domain: 3 as unknown as string })),
    "field 'domain' is not a string",
  );
  assert.match(
    await refused(await encodeState({ ...STATE, computation: null as unknown as PageState['computation'] })),
    'computation is not an object',
  );
});

test.run();
