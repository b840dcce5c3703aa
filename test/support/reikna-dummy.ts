/**
 * Reikna's test computations (tests/test_core/dummy.py), written as Loom computations, for
 * the ports in test/peers: `Dummy` (two kernels, temporaries, a persistent array),
 * `DummyNested` (calls a Dummy with a transformation attached, twice) and `DummyAdvanced`
 * ('io' parameters, one array passed for several parameters). Reikna computes them in
 * complex64 with float32 coefficients; here the arrays are float32 unless `dtype: 'complex64'`
 * is asked for. The mock_* functions are the plain-JS references (of complex arrays, their
 * parts interleaved: a real coefficient scales each part).
 */
import { makeKernel, splitIname, type LoopKernel } from '@loom/core';
import { computation, transformation, type ComputationParam } from '@loom/computation';

/** The dtypes of the Dummies' arrays. */
export type DummyDType = 'float32' | 'complex64';

/** Output = Input * Parameter (dummy.py's tr_scale). */
export function trScale(dtype: DummyDType = 'float32', coeff: 'float32' = 'float32') {
  return transformation({
    name: 'tr_scale',
    params: [
      { name: 'o1', dtype, role: 'o' },
      { name: 'i1', dtype, role: 'i' },
      { name: 's1', dtype: coeff, role: 's' },
    ],
    body: 'storeSame(o1, loadSame(i1) * s1)',
  });
}

/** Work-groups of 8 x 8, as dummy.py's block_size. */
function blocks(knl: LoopKernel): LoopKernel {
  knl = splitIname(knl, 'i', 8, { outerTag: 'g.1', innerTag: 'l.1' });
  return knl.inames.includes('j') ? splitIname(knl, 'j', 8, { outerTag: 'g.0', innerTag: 'l.0' }) : knl;
}

export interface DummyOptions {
  /** The arrays' dtype (the coefficient is float32): float32 by default, complex64 as Reikna's. */
  readonly dtype?: DummyDType;
  readonly sameAB?: boolean;
  readonly incorrectParameterName?: boolean;
  readonly kernelAdhocArray?: boolean;
  /** Binds the second kernel's scalar `k` to the string '10', a value of no numeric type (test_untyped_scalar). */
  readonly untypedScalar?: boolean;
}

/** C = A^T * coeff; D = B / coeff * 10 + arange (B and D have A's shape, or n when not sameAB). */
export function dummy(n: number, options: DummyOptions = {}) {
  const sameAB = options.sameAB ?? false;
  const dtype = options.dtype ?? 'float32';
  const bShape = sameAB ? [n, n] : [n];
  const params = [
    { name: options.incorrectParameterName ? '_C' : 'C', dtype, shape: [n, n], role: 'o' },
    { name: 'D', dtype, shape: bShape, role: 'o' },
    { name: 'A', dtype, shape: [n, n], role: 'i' },
    { name: 'B', dtype, shape: bShape, role: 'i' },
    { name: 'coeff', dtype: 'float32', role: 's' },
  ] as const satisfies readonly ComputationParam[];
  // numpy.arange(size) in the arrays' dtype: a complex one's imaginary parts 0
  const lanes = dtype === 'complex64' ? 2 : 1;
  const persistent = Float32Array.from({ length: bShape.reduce((a, b) => a * b, 1) * lanes }, (_, k) =>
    k % lanes === 0 ? k / lanes : 0,
  );
  const dPart = sameAB ? ['d[i, j] = b[i, j] / coeff'] : ['d[i] = b[i] / coeff {inames=i}'];
  const first = blocks(
    makeKernel('{ [i, j]: 0<=i,j<n }', ['c[j, i] = a[i, j] * coeff', ...dPart], undefined, { name: 'dummy' }),
  );
  const second = blocks(
    makeKernel(
      '{ [i, j]: 0<=i,j<n }',
      ['cc[i, j] = c[i, j]', sameAB ? 'dd[i, j] = d[i, j] * k + p[i, j]' : 'dd[i] = d[i] * k + p[i] {inames=i}'],
      undefined,
      { name: 'dummy2' },
    ),
  );
  return computation({
    name: 'Dummy',
    params,
    buildPlan(plan, _device, C, D, A, B, coeff) {
      const cTemp = plan.tempArrayLike(C);
      const dTemp = plan.tempArrayLike(D);
      const arr = plan.persistentArray(persistent, bShape, dtype);
      plan.kernelCall(first, { c: cTemp, d: dTemp, a: A, b: B, coeff });
      plan.kernelCall(second, {
        cc: C,
        dd: D,
        c: cTemp,
        d: dTemp,
        p: options.kernelAdhocArray ? (persistent as never) : arr,
        k: options.untypedScalar ? ('10' as never) : 10,
      });
    },
  });
}

export function mockDummy(a: Float32Array, b: Float32Array, coeff: number, n: number): [Float64Array, Float64Array] {
  // a complex array's numbers are its parts, interleaved (two per element)
  const lanes = a.length / (n * n);
  const c = new Float64Array(a.length);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      for (let p = 0; p < lanes; p++) c[(j * n + i) * lanes + p] = a[(i * n + j) * lanes + p] * coeff;
  const d = Float64Array.from(b, (x, k) => (x / coeff) * 10 + (k % lanes === 0 ? k / lanes : 0));
  return [c, d];
}

export interface NestedOptions {
  /** The arrays' dtype, as the Dummy's. */
  readonly dtype?: DummyDType;
  readonly sameAB?: boolean;
  readonly computationAdhocArray?: boolean;
  readonly computationIncorrectRole?: boolean;
  readonly computationIncorrectType?: boolean;
  readonly sameArgAsIAndO?: boolean;
}

/** Calls a Dummy (with tr_scale on its A) twice: (0.4 a, b, coeff), then (0.4 c, d, secondCoeff). */
export function dummyNested(n: number, secondCoeff: number, options: NestedOptions = {}) {
  const sameAB = options.sameAB ?? false;
  const dtype = options.dtype ?? 'float32';
  const bShape = sameAB ? [n, n] : [n];
  const scale = trScale(dtype);
  const nested = dummy(n, { sameAB, dtype }).attach('A', scale, 'o1', { i1: 'A_prime', s1: 'scale_coeff' });
  const nested2 = dummy(n, { sameAB, dtype });
  return computation({
    name: 'DummyNested',
    params: [
      { name: 'C', dtype, shape: [n, n], role: 'o' },
      { name: 'D', dtype, shape: bShape, role: 'o' },
      { name: 'A', dtype, shape: [n, n], role: 'i' },
      { name: 'B', dtype, shape: bShape, role: 'i' },
      { name: 'coeff', dtype: 'float32', role: 's' },
    ],
    buildPlan(plan, _device, C, D, A, B, coeff) {
      const cTemp = plan.tempArrayLike(C);
      const dTemp = plan.tempArrayLike(D);
      plan.computationCall(
        nested,
        options.computationAdhocArray ? (new Float32Array(n * n) as never) : cTemp,
        options.computationIncorrectRole ? B : dTemp,
        options.computationIncorrectType ? B : A,
        0.4,
        B,
        coeff,
      );
      if (options.sameArgAsIAndO) {
        const trash = plan.tempArrayLike(C);
        plan.computationCall(nested2, trash, dTemp, cTemp, dTemp, coeff);
      }
      plan.computationCall(nested, C, D, cTemp, 0.4, dTemp, secondCoeff);
    },
  });
}

export function mockDummyNested(
  a: Float32Array,
  b: Float32Array,
  coeff: number,
  secondCoeff: number,
  n: number,
  sameArgAsIAndO = false,
): [Float64Array, Float64Array] {
  let [c, d] = mockDummy(scaled(a, 0.4), b, coeff, n);
  if (sameArgAsIAndO) d = mockDummy(Float32Array.from(c), Float32Array.from(d), coeff, n)[1];
  return mockDummy(scaled(Float32Array.from(c), 0.4), Float32Array.from(d), secondCoeff, n);
}

function scaled(a: Float32Array, k: number): Float32Array {
  return Float32Array.from(a, (x) => Math.fround(x * Math.fround(k)));
}

/** 'io' parameters: a nested Dummy takes C for both A and B; then C = CT + coeff2 * CT. */
export function dummyAdvanced(n: number, dtype: DummyDType = 'float32') {
  const nested = dummy(n, { sameAB: true, dtype });
  const combine = blocks(
    makeKernel('{ [i, j]: 0<=i,j<n }', 'cc[i, j] = c[i, j] + d[i, j] * coeff', undefined, { name: 'advanced' }),
  );
  return computation({
    name: 'DummyAdvanced',
    params: [
      { name: 'C', dtype, shape: [n, n], role: 'io' },
      { name: 'D', dtype, shape: [n, n], role: 'io' },
      { name: 'coeff1', dtype: 'float32', role: 's' },
      { name: 'coeff2', dtype: 'float32', role: 's' },
    ],
    buildPlan(plan, _device, C, D, coeff1, coeff2) {
      const cTemp = plan.tempArrayLike(C);
      // one argument for two parameters, of a computation and of a kernel
      plan.computationCall(nested, cTemp, D, C, C, coeff1);
      plan.kernelCall(combine, { cc: C, c: cTemp, d: cTemp, coeff: coeff2 });
    },
  });
}

export function mockDummyAdvanced(
  c: Float32Array,
  _d: Float32Array,
  coeff1: number,
  coeff2: number,
  n: number,
): [Float64Array, Float64Array] {
  const [ct, d2] = mockDummy(c, c, coeff1, n);
  return [Float64Array.from(ct, (x) => x + coeff2 * x), d2];
}
