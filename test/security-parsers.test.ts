/**
 * Parsers under hostile input (issue 11): every reproduction of a blow-up, a stack overflow
 * or a foreign exception, and every finding of the fuzzers (test/security-fuzz.test.ts,
 * bench/fuzz.ts), as a named test. Each input either works or is refused with a LoomError
 * that says why, and quickly.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BasicSet, expr, LoomError, makeKernel, parseExpression, addDtypes, generateCode } from '@loom/core';
import { readPayload } from '@loom/elementwise';
import { jsTarget } from '@loom/codegen-js';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';

const { MAX_EXPRESSION_DEPTH, MAX_BRACKET_NESTING } = expr;

/** The LoomError `fn` throws (failing on any other outcome), after checking it took under `ms`. */
function refused(fn: () => unknown, message: RegExp, ms = 5000): LoomError {
  const start = performance.now();
  try {
    fn();
  } catch (error) {
    assert.ok(performance.now() - start < ms, `took ${performance.now() - start} ms`);
    if (!(error instanceof LoomError)) throw error;
    assert.match(error.message, message);
    return error;
  }
  throw new assert.Assertion({
    message: 'expected a LoomError',
    generated: false,
    operator: 'throws',
    expects: message,
    actual: 'no error',
  });
}

const chainedRules = (levels: number) =>
  [
    'f0(x) := x',
    ...Array.from({ length: levels }, (_, k) => `f${k + 1}(x) := f${k}(x) + f${k}(x)`),
    `out[i] = f${levels}(a[i])`,
  ].join('\n');

test('nested substitution rules expand once per level: 10 levels work quickly, 20 are refused quickly by size', () => {
  const start = performance.now();
  const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', chainedRules(10)), { a: 'float32' });
  assert.match(generateCode(knl, jsTarget()).code, /a\[/);
  assert.ok(performance.now() - start < 5000);
  // 2^20 leaves: 86 s before, now refused as soon as the expansion (20 steps) is measured.
  refused(
    () => makeKernel('{ [i]: 0<=i<n }', chainedRules(20)),
    /substitution rules written out has more than 100000 nodes/,
    2000,
  );
});

const chainedConsts = (count: number) =>
  `(x) => { const c0 = x + x; ${Array.from({ length: count - 1 }, (_, k) => `const c${k + 1} = c${k} + c${k};`).join(' ')} return c${count - 1}; }`;

test('chained payload consts are bound once: 10 and 22 (which hung) read instantly; too many distinct nodes are refused', () => {
  assert.equal(readPayload(chainedConsts(10)).outputs.length, 1);
  // each const is one node however often it is used: the kernel gives it a temporary (test/elementwise-js-semantics)
  assert.equal(readPayload(chainedConsts(22)).outputs.length, 1);
  const balanced = (lo: number, hi: number): string =>
    hi - lo === 1 ? `x*${lo}` : `(${balanced(lo, (lo + hi) >> 1)} + ${balanced((lo + hi) >> 1, hi)})`;
  refused(() => readPayload(`(x) => ${balanced(0, 6000)}`), /payload has more than 10000 distinct operations/, 2000);
});

test('a 3,000-term payload is refused for its depth, not hung; one within the bound works', () => {
  refused(
    () => readPayload(`(x) => ${Array(3000).fill('x').join(' + ')}`),
    new RegExp(`nested deeper than ${MAX_EXPRESSION_DEPTH} levels`),
  );
  const within = readPayload(
    `(x) => ${Array(MAX_EXPRESSION_DEPTH - 10)
      .fill('x')
      .join(' + ')}`,
  );
  assert.equal(within.outputs.length, 1);
  refused(() => readPayload(`(x) => ${'('.repeat(5000)}x${')'.repeat(5000)}`), /nested deeper/);
});

test('300 nested parentheses are refused at the parser, with a caret; 100 work', () => {
  const e = refused(
    () => parseExpression(`${'('.repeat(300)}a${')'.repeat(300)}`),
    new RegExp(`deeper than ${MAX_BRACKET_NESTING} levels of brackets`),
  );
  assert.is(e.span?.start, MAX_BRACKET_NESTING);
  assert.is(expr.printExpr(parseExpression(`${'('.repeat(100)}a${')'.repeat(100)}`)), 'a');
});

test('deep nesting without brackets (prefix minus, powers, conditionals) is refused, not a stack overflow', () => {
  refused(() => parseExpression(`${'-'.repeat(5000)}a`), /nested deeper than/);
  refused(() => parseExpression(Array(5000).fill('a').join(' ** ')), /nested deeper than/);
  refused(() => parseExpression(`${'a ? b : '.repeat(3000)}c`), /nested deeper than/);
  refused(() => parseExpression(`${'not '.repeat(5000)}a`), /nested deeper than/);
});

test('a 3,000-term instruction is refused with advice; a sum at the depth bound goes through every backend', () => {
  refused(
    () => makeKernel('{ [i]: 0<=i<n }', `out[i] = ${Array(3000).fill('a[i]').join(' + ')}`),
    /split it, e.g. into partial sums/,
  );
  const terms = MAX_EXPRESSION_DEPTH - 1; // `out[i] = ...`: the sum's own depth is the bound
  const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', `out[i] = ${Array(terms).fill('a[i]').join(' + ')}`), {
    a: 'float32',
  });
  for (const target of [jsTarget(), openclTarget(), wgslTarget()])
    assert.ok(generateCode(knl, target).code.length > terms);
});

test('flat sums keep their left-to-right order (no rebalancing: float addition is not associative)', () => {
  assert.is(expr.printExpr(parseExpression('a + b - c + d')), 'a + b - c + d');
  const e = parseExpression('a + b + c') as expr.Binary;
  assert.is(e.left.kind, 'binary');
  assert.is((e.right as expr.Var).name, 'c');
  // `not` over a chain still takes the whole chain (Python's reading), also down a long chain.
  assert.is(expr.printExpr(parseExpression(`not ${Array(50).fill('a').join(' + ')} < b`)).startsWith('not '), true);
});

test('10,000 instructions schedule without overflowing the stack', () => {
  const lines = Array.from({ length: 10_000 }, (_, k) => `out[i] = a[i] + ${k} {id=s${k}, dep=*}`).join('\n');
  const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', lines), { a: 'float32' });
  assert.match(generateCode(knl, jsTarget()).code, /9999/);
});

test("fuzz finding: an instruction line '...' alone is a LoomError, not a TypeError", () => {
  refused(() => makeKernel('{ [i]: 0<=i<n }', '...'), /expected a special instruction after '\.\.\.'/);
  refused(() => makeKernel('{ [i]: 0<=i<n }', '... {id=b}'), /expected a special instruction/);
});

test('fuzz finding: domain arithmetic beyond the safe integers is a LoomError with a caret, not a RangeError', () => {
  const e = refused(
    () => BasicSet.parse('{ [i]: 0<=i<9007199254740991 + 9007199254740991 }'),
    /safe range .* in '9007199254740991 \+ 9007199254740991'/,
  );
  assert.is(e.span?.start, 12);
  refused(() => BasicSet.parse('{ [i]: 0<=i<4294967296*4294967296*i }'), /safe range/);
  refused(() => BasicSet.parse('{ [i]: 0 <= 9007199254740991*i + 9007199254740991*i }'), /safe range/);
  refused(() => BasicSet.parse('{ [i]: 0 <= -9007199254740991 - 2 }'), /safe range/);
  // Overflow found later, in the set operations, is a LoomError too (a CoefficientRangeError).
  refused(
    () => makeKernel('{ [i]: floor(i/9007199254740991) = 9007199254740991 }', 'out[i] = 1'),
    /beyond 9007199254740991 \(2\^53 - 1\)/,
  );
});

test.run();
