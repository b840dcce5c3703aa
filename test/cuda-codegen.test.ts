/**
 * What the CUDA target prints that the golden files do not show: int64 as `long long`, NaN
 * and infinity without headers, saturating float-to-integer conversions, |x| of unsigned and
 * 64-bit integers, float atomics, and the refusals (vectors of float16, user functions).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  assignment,
  defineFunction,
  expr,
  generateCode,
  LoomError,
  makeKernel,
  registerFunction,
  tagArrayAxes,
  tagInames,
  type DType,
  type LoopKernel,
} from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';

const code = (knl: LoopKernel) => generateCode(knl, cudaTarget()).code;
const typed = (insn: string, dtypes: Record<string, DType>) => addDtypes(makeKernel('{ [i]: 0<=i<n }', insn), dtypes);

test('int64 is long long, with ll literals; |x| is llabs for int64 and x itself for unsigned', () => {
  const c = code(typed('out[i] = abs(a[i]) + 3', { a: 'int64' }));
  assert.match(c, /long long const \*__restrict__ a/);
  assert.match(c, /\(long long\) llabs\(a\[i\]\)/);
  assert.match(c, /3ll/);
  assert.match(code(typed('out[i] = abs(a[i])', { a: 'uint32' })), /out\[i\] = a\[i\];/);
});

test('NaN and infinity are bit patterns (NVRTC has no NAN without headers); float32 math takes the f suffix', () => {
  // the instruction text has no NaN literal: the instruction is built from nodes
  const { variable, subscript, binary, call, cast, float } = expr;
  // a float literal is a float64 (Python's float); cast, it is spelled in float32
  const [nan, inf] = [float(Number.NaN), float(Number.POSITIVE_INFINITY)];
  const value = binary(
    '+',
    call('sqrt', [subscript('a', [variable('i')])]),
    binary('+', cast('float32', nan), binary('*', cast('float32', inf), binary('+', nan, inf))),
  );
  const knl = makeKernel('{ [i]: 0<=i<n }', [assignment(subscript('out', [variable('i')]), value, { id: 'nan' })]);
  const c = code(addDtypes(knl, { a: 'float32', out: 'float32' }));
  assert.match(c, /__int_as_float\(0x7fc00000\)/, c);
  assert.match(c, /__int_as_float\(0x7f800000\)/);
  assert.match(c, /__longlong_as_double\(0x7ff8000000000000ll\) \+ __longlong_as_double\(0x7ff0000000000000ll\)/);
  assert.match(c, /sqrtf\(a\[i\]\)/);
  assert.match(code(typed('out[i] = sqrt(a[i])', { a: 'float64' })), /[^f]sqrt\(a\[i\]\)/);
});

test('a float to an integer saturates and maps NaN to 0 (a CUDA cast out of range is undefined)', () => {
  const c = code(typed('out[i] = int8(a[i])', { a: 'float32' }));
  assert.match(
    c,
    /return isnan\(x\) \? \(signed char\) 0 : x >= 128\.0f \? 127 : x <= -128\.0f \? -128 : \(signed char\) x;/,
  );
});

test('atomic float add is atomicAdd; atomic float max is a compare-and-swap loop', () => {
  const add = tagInames(makeKernel('{ [i]: 0<=i<n }', 'out[0] = out[0] + a[i] {atomic}'), { i: 'g.0' });
  assert.match(code(addDtypes(add, { a: 'float32', out: 'float32' })), /atomicAdd\(&out\[0\], a\[bIdx\(x\)\]\);/);
  const max = tagInames(makeKernel('{ [i]: 0<=i<n }', 'out[0] = max(out[0], a[i]) {atomic}'), { i: 'g.0' });
  const c = code(addDtypes(max, { a: 'float64', out: 'float64' }));
  assert.match(
    c,
    /atomicCAS\(address, seen, \(unsigned long long\) __double_as_longlong\(loom_maximum_float64\(__longlong_as_double\(seen\), operand\)\)\)/,
  );
  assert.match(c, /loom_atomic_max_float64\(&out\[0\], a\[bIdx\(x\)\]\);/);
});

test('refusals say why: a float16 vector, a user function without CUDA code', () => {
  const fixed = makeKernel('{ [i]: 0<=i<4 }', 'out[i] = 2*a[i]');
  const halfVector = tagInames(tagArrayAxes(addDtypes(fixed, { a: 'float16' }), 'a,out', 'vec'), { i: 'vec' });
  assert.throws(
    () => code(halfVector),
    (e: unknown) => e instanceof LoomError && /CUDA has no vector type of float16/.test(e.message),
  );
  const twice = defineFunction({
    name: 'twice',
    signature: { args: ['float32'], result: 'float32' },
    opencl: { name: 'twice_cl', preamble: 'inline float twice_cl(float x) { return x + x; }' },
  });
  const user = addDtypes(registerFunction(makeKernel('{ [i]: 0<=i<n }', 'out[i] = twice(a[i])'), twice), {
    a: 'float32',
  });
  assert.throws(
    () => code(user),
    (e: unknown) =>
      e instanceof LoomError &&
      /function 'twice' has no CUDA C\+\+ implementation \(give defineFunction cuda: \{ name, preamble \}\)/.test(
        e.message,
      ),
  );
});

test("a user function's cuda code is its CUDA implementation: the preamble once, the call by its name", () => {
  const twice = defineFunction({
    name: 'twice',
    signature: { args: ['float32'], result: 'float32' },
    opencl: { name: 'twice_cl', preamble: 'inline float twice_cl(float x) { return x + x; }' },
    cuda: { name: 'twice_cu', preamble: '__device__ inline float twice_cu(float x) { return x + x; }' },
  });
  const user = addDtypes(
    registerFunction(makeKernel('{ [i]: 0<=i<n }', 'out[i] = twice(a[i]) + twice(a[i] + 1)'), twice),
    { a: 'float32' },
  );
  const printed = code(user);
  assert.is(printed.split('__device__ inline float twice_cu').length, 2, printed);
  assert.match(printed, /twice_cu\(a\[i\]\)/);
  assert.not.match(printed, /twice_cl/);
});

test.run();
