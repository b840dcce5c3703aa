/**
 * User functions (loopy's register_callable): a function registered with its signature and
 * an implementation per target is called by kernels on every device, with type inference
 * through it and its preamble emitted once per program; a generic one takes its signature
 * from the arguments' dtypes. Names are checked like every name; what cannot be generated
 * (no implementation for a target, a name that would collide) is a LoomError before anything runs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  defineFunction,
  generateCode,
  globalArg,
  LoomError,
  makeKernel,
  registerFunction,
  run,
  type DType,
  type FunctionSignature,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { jsTarget } from '@loom/codegen-js';
import { testDevices } from './support/devices.ts';

const softplus = defineFunction({
  name: 'softplus',
  signature: { args: ['float32'], result: 'float32' },
  opencl: {
    name: 'loom_user_softplus',
    preamble: 'inline float loom_user_softplus(float x) { return log(1.0f + exp(x)); }',
  },
  wgsl: { name: 'softplus_f32', preamble: 'fn softplus_f32(x: f32) -> f32 { return log(1.0 + exp(x)); }' },
  cuda: {
    name: 'loom_user_softplus',
    preamble: '__device__ inline float loom_user_softplus(float x) { return logf(1.0f + expf(x)); }',
  },
  c: {
    name: 'loom_user_softplus',
    preamble: 'static inline float loom_user_softplus(float x) { return logf(1.0f + expf(x)); }',
  },
  js: (x: number) => Math.log(1 + Math.exp(x)),
});

/** `twice(x)`: generic over float32, float64 and int32, one implementation per dtype. */
const C_TYPES: Partial<Record<DType, string>> = { float32: 'float', float64: 'double', int32: 'int' };
const WGSL_TYPES: Partial<Record<DType, string>> = { float32: 'f32', int32: 'i32' };
const twice = defineFunction({
  name: 'twice',
  signature: ([t]) => {
    if (t === undefined || !C_TYPES[t]) throw new LoomError(`twice() takes float32, float64 or int32, not ${t}`);
    return { args: [t], result: t };
  },
  opencl: ({ args: [t] }: FunctionSignature) => ({
    name: `twice_${t}`,
    preamble: `inline ${C_TYPES[t]} twice_${t}(${C_TYPES[t]} x) { return x + x; }`,
  }),
  wgsl: ({ args: [t] }: FunctionSignature) => ({
    name: `twice_${t}`,
    preamble: `fn twice_${t}(x: ${WGSL_TYPES[t]}) -> ${WGSL_TYPES[t]} { return x + x; }`,
  }),
  cuda: ({ args: [t] }: FunctionSignature) => ({
    name: `twice_${t}`,
    preamble: `__device__ inline ${C_TYPES[t]} twice_${t}(${C_TYPES[t]} x) { return x + x; }`,
  }),
  c: ({ args: [t] }: FunctionSignature) => ({
    name: `twice_${t}`,
    preamble: `static inline ${C_TYPES[t]} twice_${t}(${C_TYPES[t]} x) { return x + x; }`,
  }),
  js: (x: number) => x + x,
});

const f32 = (xs: number[]) => xs.map(Math.fround);

/** `seven()`: a function of no arguments. */
const seven = defineFunction({
  name: 'seven',
  signature: { args: [], result: 'int32' },
  opencl: { name: 'loom_user_seven', preamble: 'inline int loom_user_seven(void) { return 7; }' },
  cuda: { name: 'loom_user_seven', preamble: '__device__ inline int loom_user_seven(void) { return 7; }' },
  c: { name: 'loom_user_seven', preamble: 'static inline int loom_user_seven(void) { return 7; }' },
  wgsl: { name: 'loom_user_seven', preamble: 'fn loom_user_seven() -> i32 { return 7; }' },
  js: () => 7,
});

for (const device of testDevices()) {
  test(`${device.name}: a registered function, called twice, against plain JavaScript`, async () => {
    const knl = registerFunction(
      makeKernel('{ [i]: 0<=i<n }', ['out[i] = softplus(a[i]) - softplus(-a[i])']),
      softplus,
    );
    const a = new Float32Array([0, 1, -2, 3.5, 10]);
    const { out } = await run(knl, device, { a });
    // softplus(x) - softplus(-x) is x
    Array.from(out as Float32Array).forEach((v, k) => assert.ok(Math.abs(v - a[k]) < 1e-5, `${v} vs ${a[k]}`));
  });

  test(`${device.name}: a function of no arguments types the temporary it is assigned to`, async () => {
    const knl = registerFunction(makeKernel('{ [i]: 0<=i<n }', ['<> t = seven()', 'out[i] = t + i']), seven);
    const { out } = await run(knl, device, { n: 3 });
    assert.instance(out, Int32Array);
    assert.equal(Array.from(out as Int32Array), [7, 8, 9]);
  });

  test(`${device.name}: a generic function types what it computes: float32 in, float32 out; int32 in, int32 out`, async () => {
    const knl = registerFunction(
      makeKernel('{ [i]: 0<=i<n }', ['<> t = twice(a[i])', 'out[i] = t + 1', 'k2[i] = twice(k[i])']),
      twice,
    );
    const a = new Float32Array([0.5, -1.25, 3]);
    const k = new Int32Array([1, -7, 100]);
    const out = await run(knl, device, { a, k });
    assert.instance(out.out, Float32Array);
    assert.instance(out.k2, Int32Array);
    assert.equal(Array.from(out.out as Float32Array), f32([2, -1.5, 7]));
    assert.equal(Array.from(out.k2 as Int32Array), [2, -14, 200]);
  });
}

test('type inference goes through a function: its result dtype, its arguments converted to its signature', () => {
  const knl = registerFunction(
    makeKernel(
      '{ [i]: 0<=i<n }',
      ['<> t = softplus(k[i])', 'out[i] = t*2'],
      [globalArg('k', { dtype: 'int32', shape: ['n'] }), '...'],
    ),
    softplus,
  );
  const code = generateCode(knl, openclTarget()).code;
  // an int32 argument converted to the float32 the signature takes; the temporary and the output float32
  assert.match(code, /float t;/);
  assert.match(code, /t = loom_user_softplus\(\(float\) k\[i\]\);/);
  assert.match(code, /__global float \*__restrict__ out/);
});

test('a preamble is emitted once per program, however many calls', () => {
  const knl = registerFunction(
    makeKernel(
      '{ [i]: 0<=i<n }',
      ['x[i] = softplus(a[i])', 'y[i] = softplus(x[i])'],
      [globalArg('a', { dtype: 'float32', shape: ['n'] }), '...'],
    ),
    softplus,
  );
  for (const [target, preamble] of [
    [openclTarget(), 'inline float loom_user_softplus'],
    [wgslTarget(), 'fn softplus_f32'],
  ] as const) {
    const code = generateCode(knl, target, {}).code;
    assert.is(code.split(preamble).length - 1, 1, `${target.name}:\n${code}`);
  }
});

test('registerFunction(fn) makes a function every kernel can call; registering another by the same name is refused', async () => {
  const cube = defineFunction({
    name: 'cube',
    signature: { args: ['float64'], result: 'float64' },
    opencl: { name: 'cube_f64', preamble: 'inline double cube_f64(double x) { return x * x * x; }' },
    js: (x: number) => x * x * x,
  });
  registerFunction(cube);
  registerFunction(cube); // the same one again: fine
  assert.throws(
    () => registerFunction({ ...cube, signature: { args: ['float32'], result: 'float32' } } as never),
    /registered already/,
  );
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = cube(a[i])');
  const { cpuDevice } = await import('@loom/codegen-js');
  const { out } = await run(knl, cpuDevice(), { a: new Float64Array([2, -3]) });
  assert.equal(Array.from(out as Float64Array), [8, -27]);
});

test('what cannot be generated is a LoomError before anything runs', () => {
  const noWgsl = defineFunction({
    name: 'only_cl',
    signature: { args: ['float32'], result: 'float32' },
    opencl: { name: 'only_cl_impl', preamble: '' },
    js: (x: number) => x,
  });
  const knl = registerFunction(
    makeKernel('{ [i]: 0<=i<n }', 'out[i] = only_cl(a[i])', [
      globalArg('a', { dtype: 'float32', shape: ['n'] }),
      '...',
    ]),
    noWgsl,
  );
  assert.throws(() => generateCode(knl, wgslTarget()), /function 'only_cl' has no WGSL implementation/);
  generateCode(knl, openclTarget());
  generateCode(knl, jsTarget());

  // an implementation called by a name the kernel uses: shadowed in C, refused
  const clash = defineFunction({
    name: 'clash',
    signature: { args: ['float32'], result: 'float32' },
    opencl: { name: 'a', preamble: '' },
    wgsl: { name: 'a', preamble: '' },
  });
  const clashing = registerFunction(
    makeKernel('{ [i]: 0<=i<n }', 'out[i] = clash(a[i])', [globalArg('a', { dtype: 'float32', shape: ['n'] }), '...']),
    clash,
  );
  assert.throws(
    () => generateCode(clashing, openclTarget()),
    /called 'a' in OpenCL C, which the kernel also uses as a name/,
  );
  assert.throws(
    () => generateCode(clashing, wgslTarget()),
    /called 'a' in WGSL, a name WGSL or the module uses already/,
  );

  // an implementation called by a keyword, type or built-in of OpenCL C, or one of Loom's helpers: refused as WGSL's are
  for (const reserved of [
    'get_global_id',
    'barrier',
    'int',
    'float4',
    'sqrt',
    'convert_int_sat',
    'native_exp',
    'M_PI',
    'loom_div_int32',
    '__kernel',
  ]) {
    const fn = defineFunction({
      name: 'reserved_cl',
      signature: { args: ['float32'], result: 'float32' },
      opencl: { name: reserved, preamble: '' },
    });
    const knl = registerFunction(
      makeKernel('{ [i]: 0<=i<n }', 'out[i] = reserved_cl(a[i])', [
        globalArg('a', { dtype: 'float32', shape: ['n'] }),
        '...',
      ]),
      fn,
    );
    assert.throws(
      () => generateCode(knl, openclTarget()),
      (e: unknown) =>
        e instanceof LoomError &&
        e.message.includes(
          `function 'reserved_cl' is called '${reserved}' in OpenCL C, a keyword, type or built-in function of OpenCL C`,
        ),
      reserved,
    );
  }
  // two functions called by one OpenCL name: C has no overloads
  const first = defineFunction({
    name: 'first_fn',
    signature: { args: ['float32'], result: 'float32' },
    opencl: { name: 'shared_impl', preamble: '' },
  });
  const second = defineFunction({
    name: 'second_fn',
    signature: { args: ['float32'], result: 'float32' },
    opencl: { name: 'shared_impl', preamble: '' },
  });
  const both = registerFunction(
    makeKernel('{ [i]: 0<=i<n }', 'out[i] = first_fn(a[i]) + second_fn(a[i])', [
      globalArg('a', { dtype: 'float32', shape: ['n'] }),
      '...',
    ]),
    first,
    second,
  );
  assert.throws(
    () => generateCode(both, openclTarget()),
    /functions 'first_fn' and 'second_fn' are both called 'shared_impl' in OpenCL C, which has no overloads/,
  );

  // a generic function refusing its arguments' dtypes
  const refused = registerFunction(
    makeKernel('{ [i]: 0<=i<n }', 'out[i] = twice(b[i])', [globalArg('b', { dtype: 'uint8', shape: ['n'] }), '...']),
    twice,
  );
  assert.throws(() => generateCode(refused, openclTarget()), /twice\(\) takes float32, float64 or int32, not uint8/);
  // the wrong number of arguments
  const wrong = registerFunction(
    makeKernel('{ [i]: 0<=i<n }', 'out[i] = softplus(a[i], a[i])', [
      globalArg('a', { dtype: 'float32', shape: ['n'] }),
      '...',
    ]),
    softplus,
  );
  assert.throws(() => generateCode(wrong, openclTarget()), /function 'softplus' takes 1 argument, got 2/);
});

test('the builder verb .functions() registers them', async () => {
  const { kernel } = await import('@loom/dsl');
  const { cpuDevice } = await import('@loom/codegen-js');
  const built = kernel('{ [i]: 0<=i<n }', 'out[i] = twice(a[i]) + 1').functions(twice);
  const { out } = await built.run(cpuDevice(), { a: new Float32Array([1, 2.5]) });
  assert.equal(Array.from(out as Float32Array), [3, 6]);
});

test("names given to a function go through the name checks; the language's own forms cannot be redefined; signatures are dtypes", () => {
  const impl = { name: 'f_impl', preamble: '' };
  const spec = { signature: { args: ['float32'], result: 'float32' }, opencl: impl } as const;
  assert.throws(
    () => defineFunction({ ...spec, name: 'f(x); evil' } as never),
    /defineFunction: name: "f\(x\); evil" is not a name/,
  );
  assert.throws(
    () => defineFunction({ ...spec, name: 'f', opencl: { name: 'f */ evil', preamble: '' } }),
    /the name its code is called by: "f \*\/ evil" is not a name/,
  );
  assert.throws(() => defineFunction({ ...spec, name: 'if' }), /'if' is a built-in/);
  // a math function's name is not a form of the language: a user function overrides it (see the peers' test_register_function_lookup)
  assert.is(defineFunction({ ...spec, name: 'sin' }).name, 'sin');
  assert.throws(() => defineFunction({ ...spec, name: 'sum' }), /'sum' is the name of a reduction/);
  assert.throws(
    () => defineFunction({ name: 'g', signature: { args: ['float33' as DType], result: 'float32' } }),
    /"float33" is not a dtype/,
  );
  assert.throws(
    () => defineFunction({ name: 'g', signature: { args: ['complex64'], result: 'float32' } }),
    /complex dtypes/,
  );
  // a kernel's rule and a function of the same name: the rule is the kernel's already
  const withRule = makeKernel('{ [i]: 0<=i<n }', ['sq(x) := x*x', 'out[i] = sq(a[i])']);
  assert.throws(() => registerFunction(withRule, { ...spec, name: 'sq' }), /has a substitution rule 'sq' already/);
});

/**
 * An int32 result documented to saturate (issue 24, item 9): the JavaScript implementation
 * returns a double, which Loom converts as a float converts (truncated, saturated, NaN → 0);
 * the OpenCL, WGSL and C implementations do the same conversion themselves, as the docs ask of
 * an implementation with an integer result (WGSL may assume no NaN, so its test is on the bits).
 * The argument, an int32 read from float32 data,
 * is converted by Loom on every device with the same meaning.
 */
const thousandfold = defineFunction({
  name: 'thousandfold',
  signature: { args: ['float32'], result: 'int32' },
  opencl: {
    name: 'loom_user_thousandfold',
    preamble: 'inline int loom_user_thousandfold(float x) { return convert_int_sat_rtz(x * 1000.0f); }',
  },
  wgsl: {
    name: 'thousandfold_f32',
    preamble:
      'fn thousandfold_f32(x: f32) -> i32 { let y = x * 1000.0; if ((bitcast<u32>(y) & 0x7fffffffu) > 0x7f800000u) { return 0; } if (y >= 2147483648.0) { return 2147483647; } if (y <= -2147483648.0) { return -2147483647 - 1; } return i32(y); }',
  },
  // PTX's float-to-int conversion saturates and takes NaN to 0
  cuda: {
    name: 'loom_user_thousandfold',
    preamble: '__device__ inline int loom_user_thousandfold(float x) { return __float2int_rz(x * 1000.0f); }',
  },
  // C leaves the cast of an out-of-range float undefined: the range is tested first
  c: {
    name: 'loom_user_thousandfold',
    preamble:
      'static inline int loom_user_thousandfold(float x) { float y = x * 1000.0f; return isnan(y) ? 0 : y >= 2147483648.0f ? 2147483647 : y <= -2147483648.0f ? (-2147483647 - 1) : (int) y; }',
  },
  js: (x: number) => x * 1000,
});
const identity32 = defineFunction({
  name: 'identity32',
  signature: { args: ['int32'], result: 'int32' },
  opencl: { name: 'loom_user_identity32', preamble: 'inline int loom_user_identity32(int x) { return x; }' },
  wgsl: { name: 'identity32_i32', preamble: 'fn identity32_i32(x: i32) -> i32 { return x; }' },
  cuda: { name: 'loom_user_identity32', preamble: '__device__ inline int loom_user_identity32(int x) { return x; }' },
  c: { name: 'loom_user_identity32', preamble: 'static inline int loom_user_identity32(int x) { return x; }' },
  js: (x: number) => x,
});

/** A float converted to int32 as the docs say: truncated, saturated at the range, NaN → 0. */
const saturated = (x: number) => (Number.isNaN(x) ? 0 : Math.min(2 ** 31 - 1, Math.max(-(2 ** 31), Math.trunc(x))));

for (const device of testDevices()) {
  test(`${device.name}: an int32 result and an int32 argument saturate (in range, beyond both ends, NaN), as plain JS says`, async () => {
    const knl = registerFunction(
      makeKernel('{ [i]: 0<=i<n }', ['out[i] = thousandfold(a[i])', 'arg[i] = identity32(a[i])']),
      thousandfold,
      identity32,
    );
    const a = new Float32Array([
      1.5,
      -2.25,
      3e6,
      -3e6,
      4e9,
      -4e9,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
    ]);
    const { out, arg } = await run(knl, device, { a });
    // 3e6 * 1000 = 3e9: once wrapped to -1294967296 on the CPU device
    assert.equal(
      Array.from(out as Int32Array),
      Array.from(a, (x) => saturated(Math.fround(x * 1000))),
    );
    assert.equal(Array.from(arg as Int32Array), Array.from(a, saturated));
  });
}

test.run();
