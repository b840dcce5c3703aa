/**
 * Payloads: TS functions and expression strings read into the core IR, their
 * meaning in kernels (JavaScript's: exact `/`, truncated `%`, Math.round's halves up),
 * and the errors for what cannot be translated, with a caret under the construct.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError, MATH_FUNCTIONS, mathFunctionsWhere, printExpr, targetFacts } from '@loom/core';
import { pointwise, readPayload, tensor } from '@loom/elementwise';
import { testDevices } from './support/devices.ts';
import { assertNumbers, numbers } from './support/elementwise-reference.ts';

const printed = (payload: Parameters<typeof readPayload>[0], params?: string[]) =>
  readPayload(payload, params).outputs.map(printExpr);

test('functions become IR expressions: arithmetic, Math, ternaries, locals, several outputs', () => {
  const add = readPayload((x: number, y: number, alpha: number) => x + y * alpha);
  assert.equal(add.params, ['x', 'y', 'alpha']);
  assert.equal(add.outputs.map(printExpr), ['x + y*alpha']);
  assert.equal(
    printed((a: number, b: number) => [a * Math.cos(b), a * Math.sin(b)]),
    ['a*cos(b)', 'a*sin(b)'],
  );
  assert.equal(
    printed((x: number) => (x > 0 ? x : -x)),
    ['if(x > 0, x, -x)'],
  );
  assert.equal(
    printed((x: number) => x / 2 + (x % 3) + x ** 2),
    ['truediv(x, 2) + fmod(x, 3) + jspow(x, 2)'],
  );
  assert.equal(
    printed((x: number) => Math.round(x) + Math.PI),
    ['jsround(x) + 3.141592653589793'],
  );
  assert.equal(
    printed((x: number, y: number) => Math.max(x, y, 0) + Math.hypot(x, y)),
    ['max(x, y, 0) + jshypot(x, y)'],
  );
  assert.equal(
    printed((x: number, y: number) => !(x > 0) || (y <= 1 && x !== y)),
    ['not x > 0 or y <= 1 and jsstrictne(x, y)'],
  );
  assert.equal(
    printed(function relu(x: number) {
      const zero = 0;
      const positive = x > zero;
      return positive ? x : zero;
    }),
    ['if(x > 0, x, 0)'],
  );
  assert.is(
    readPayload(function relu(x: number) {
      return x;
    }).name,
    'relu',
  );
  const methods = {
    scale(x: number) {
      return 2 * x;
    },
  };
  assert.equal(printed(methods.scale), ['2*x']);
  assert.equal(printed('(x, y) => x - y'), ['x - y']); // a function's source as a string
});

test("every function core's table marks as JavaScript's Math.<name> reads as itself; Math's object members are no functions", () => {
  const same = [...mathFunctionsWhere((f) => f.js === true)];
  assert.ok(same.includes('expm1') && same.includes('atan2'), same.join(' '));
  for (const name of same) {
    const f = MATH_FUNCTIONS[name];
    const args = f.arity === 'variadic' ? ['x', 'y'] : ['x', 'y', 'z'].slice(0, f.arity);
    assert.equal(printed(`(x, y, z) => Math.${name}(${args.join(', ')})`), [`${name}(${args.join(', ')})`], name);
  }
  const source = '(x) => Math.constructor(x)';
  assertPointsAt(() => pointwise({}, source), source, 'Math.constructor', /Math.constructor has no counterpart/);
});

test('expression strings use the core language; parameters in order of appearance or given', () => {
  const p = readPayload('x + y*alpha');
  assert.equal(p.params, ['x', 'y', 'alpha']);
  assert.equal(readPayload(['a*cos(b)', 'a*sin(b)'], ['a', 'b']).outputs.length, 2);
  assert.equal(readPayload('alpha*x', ['x', 'alpha']).params, ['x', 'alpha']);
});

/** Asserts a LoomError whose message names `what` and puts a caret under `construct` in `source`. */
function assertPointsAt(fn: () => unknown, source: string, construct: string, what: RegExp): void {
  try {
    fn();
  } catch (e) {
    assert.instance(e, LoomError);
    const message = (e as Error).message;
    assert.match(message, what);
    const column = source.indexOf(construct);
    assert.ok(column >= 0, `'${construct}' is in '${source}'`);
    assert.ok(
      message.includes(`  ${source}\n  ${' '.repeat(column)}${'^'.repeat(construct.length)}`),
      `caret under '${construct}':\n${message}`,
    );
    return;
  }
  assert.unreachable('expected a LoomError');
}

test('what cannot be translated is a LoomError at pointwise() time, with a caret under the construct', () => {
  const cases: [string, string, RegExp][] = [
    ['(x, y) => x >>> y', '>>>', /'>>>' has no counterpart/],
    ['(x) => foo(x)', 'foo', /cannot call 'foo'/],
    ['(x) => Math.random()', 'Math.random', /Math.random has no counterpart/],
    ['(x) => { if (x > 0) return x; return 0; }', 'if (x > 0) return x;', /conditional expression/],
    ['(x) => { let y = x; y = 2; return y; }', 'y = 2;', /only const declarations and a final return/],
    ['(x) => x + z', 'z', /'z' is neither a parameter nor a local/],
    ['(x) => x.length', 'x.length', /cannot be read in a payload/],
    ['({ a }) => a', '{ a }', /plain names/],
    ['(x) => `${x}`', '`${x}`', /cannot be translated/],
    ['(x) => [x, [x]]', '[x]', /only be the returned list/],
  ];
  for (const [source, construct, what] of cases) assertPointsAt(() => pointwise({}, source), source, construct, what);
  assert.throws(() => pointwise({}, 'x + foo(y)'), /unknown function 'foo'/);
  assert.throws(() => pointwise({}, (x: number) => [x, x]), /returns 2 output\(s\), but numOutputs is 1/);
  assert.throws(
    () => pointwise({ isTensor: [true] }, (x: number, y: number) => x + y),
    /isTensor has 1 entries, but the payload takes 2 inputs/,
  );
  assert.throws(
    () => pointwise({ promotionMethods: [[0, 'FAST' as never]] }, (x: number) => x),
    /unknown promotion method 'FAST'/,
  );
  assert.throws(() => pointwise({ promotionMethods: [[3, 'DEFAULT']] }, (x: number) => x), /names argument 3/);
});

for (const device of testDevices()) {
  test(`${device.name}: JavaScript's meaning, element by element`, async () => {
    const js = pointwise(
      {
        numOutputs: 6,
        promotionMethods: [
          [0, 1, 'INT_TO_FLOAT'],
          [0, 1, 'DEFAULT'],
          [0, 'INT_TO_FLOAT'],
          [0, 1, 'DEFAULT'],
          [0, 1, 'INT_TO_FLOAT'],
          [0, 1, 'DEFAULT'],
        ],
      },
      (x: number, y: number) => [
        x / y,
        x % y,
        Math.round(x / 2),
        Math.sign(x) * Math.min(x, y, 3),
        Math.hypot(x, y),
        x > 0 && y > 0 ? 1 : x === y ? 2 : 0,
      ],
    );
    const xs = [7, -7, 5, -5, 0, 3];
    const ys = [2, 2, -3, -3, 4, 3];
    const outs = await js(
      tensor(xs, undefined, { device, dtype: 'int32' }),
      tensor(ys, undefined, { device, dtype: 'int32' }),
    );
    assert.equal(
      outs.map((o) => o.dtype),
      ['float32', 'int32', 'float32', 'int32', 'float32', 'int32'],
    );
    const results = await Promise.all(outs.map(async (o) => numbers(await o.toArray())));
    const f32 = Math.fround;
    // WGSL's float32 division is only within 2.5 ulp (README): NVIDIA's Vulkan driver uses it
    assertNumbers(
      results[0],
      xs.map((x, k) => f32(x / ys[k])),
      'x / y',
      targetFacts(device.target).relaxedFloatAccuracy ? 2.5 * 2 ** -23 : undefined,
    );
    assertNumbers(
      results[1],
      xs.map((x, k) => x % ys[k]),
      'x % y',
    );
    assertNumbers(
      results[2],
      xs.map((x) => Math.round(x / 2)),
      'Math.round(x / 2)',
    );
    assertNumbers(
      results[3],
      xs.map((x, k) => Math.sign(x) * Math.min(x, ys[k], 3)),
      'sign * min',
    );
    assertNumbers(
      results[4],
      xs.map((x, k) => f32(Math.hypot(x, ys[k]))),
      'hypot',
      1e-6,
    );
    assertNumbers(
      results[5],
      xs.map((x, k) => (x > 0 && ys[k] > 0 ? 1 : x === ys[k] ? 2 : 0)),
      'logic',
    );

    // Math functions that are core's own (expm1, log1p, asinh: read since core's table marks them)
    const own = pointwise({ numOutputs: 1 }, (x: number) => Math.expm1(x) + Math.log1p(x) + Math.asinh(x));
    const small = [0.3, 2, -0.25, 0.01];
    assertNumbers(
      numbers(await (await own(tensor(small, undefined, { device, dtype: 'float32' }))).toArray()),
      small.map((x) => Math.fround(Math.expm1(x) + Math.log1p(x) + Math.asinh(x))),
      'expm1 + log1p + asinh',
      1e-5,
    );

    // floats: % keeps the dividend's sign (fmod); Infinity is a constant the kernel receives
    const floats = pointwise(
      {
        numOutputs: 2,
        promotionMethods: [
          [0, 1, 'DEFAULT'],
          [0, 'DEFAULT'],
        ],
      },
      (x: number, y: number) => [x % y, x > 1 ? Infinity : -x],
    );
    const fx = [7.5, -7.5, 2, 0.25];
    const [rem, inf] = await floats(tensor(fx, undefined, { device, dtype: 'float32' }), 2);
    assertNumbers(
      numbers(await rem.toArray()),
      fx.map((x) => x % 2),
      'float %',
    );
    assertNumbers(
      numbers(await inf.toArray()),
      fx.map((x) => (x > 1 ? Infinity : -x)),
      'Infinity',
    );
  });
}

test.run();
