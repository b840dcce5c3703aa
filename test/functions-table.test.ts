/**
 * The table of known functions (core's math-functions.ts) is where every layer learns them:
 * the parser's arities, type inference's result dtypes, and the JavaScript names the CPU
 * device and constant folding call, checked here entry by entry against what those layers do.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  exprType,
  isMathFunction,
  LoomError,
  MATH_FUNCTIONS,
  parseExpression,
  type DType,
  type MathFunction,
} from '@loom/core';

const entries = Object.entries(MATH_FUNCTIONS) as [string, MathFunction][];
const call = (name: string, n: number) => `${name}(${Array.from({ length: n }, (_, k) => `x${k}`).join(', ')})`;

test('the parser takes each function with its arity and refuses another count', () => {
  for (const [name, f] of entries) {
    const n = f.arity === 'variadic' ? 3 : f.arity;
    assert.is(parseExpression(call(name, n)).kind, 'call', name);
    if (f.arity !== 'variadic')
      assert.throws(
        () => parseExpression(call(name, n + 1)),
        (e: unknown) => e instanceof LoomError,
        name,
      );
  }
  assert.not.ok(isMathFunction('constructor'));
});

test('type inference gives each function the result its entry states', () => {
  for (const [name, f] of entries) {
    if (f.complexOnly) continue;
    const n = f.arity === 'variadic' ? 2 : f.arity;
    const typeOf = (dtype: DType) => exprType(parseExpression(call(name, n)), () => dtype).dtype;
    const expected = { float: 'float64', argument: 'int32', truth: 'bool' }[f.result];
    assert.is(typeOf('int32'), expected, `${name} of int32`);
    if (f.integerBits) {
      // on the bits of 32- and 64-bit integers only
      assert.is(typeOf('uint64'), 'uint64', `${name} of uint64`);
      for (const t of ['float32', 'int16'] as const)
        assert.throws(() => typeOf(t), /works on the bits of 32- and 64-bit integers/, `${name} of ${t}`);
      continue;
    }
    assert.is(typeOf('float32'), f.result === 'truth' ? 'bool' : 'float32', `${name} of float32`);
  }
  // of a complex value, a real one
  for (const [name, f] of entries)
    if (f.realOfComplex) assert.is(exprType(parseExpression(`${name}(z)`), () => 'complex64').dtype, 'float32', name);
});

test("the functions marked as JavaScript's are Math's, of the same arity", () => {
  const math = Math as unknown as Record<string, unknown>;
  for (const [name, f] of entries) {
    if (!f.js) continue;
    assert.type(math[name], 'function', name);
    if (f.arity !== 'variadic') assert.is((math[name] as (...xs: number[]) => number).length, f.arity, name);
  }
});

test.run();
