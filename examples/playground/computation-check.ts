/**
 * The computation tab's run: one of @loom/computation's library computations (Reikna's
 * Reduce, Scan, Transpose, MatrixMul) on random inputs, compiled for each device present
 * (the GPU and the CPU device), each output checked against plain JavaScript. No DOM here.
 *
 *   reduce, scan   along the last axis of an array of the shape `sizes`, with a predicate
 *   transpose      all axes reversed
 *   matmul         sizes [n, m, l]: an n×l matrix times an l×m one
 */
import { LoomError, type Device, type DType, type HostArray } from '@loom/core';
import {
  matrixMul,
  predicateMax,
  predicateMin,
  predicateSum,
  reduce,
  scan,
  transpose,
  type Computation,
  type Predicate,
} from '@loom/computation';
import { parseLiteral } from './chain.ts';
import { agrees, randomArray, type Devices } from './check.ts';
import type { ComputationInputs } from './url-state.ts';

export const OPERATIONS = ['reduce', 'scan', 'transpose', 'matmul'] as const;
export const PREDICATES = ['sum', 'max', 'min'] as const;
export const DTYPES = ['float32', 'int32'] as const;

/** The tab's first choices. */
export const DEFAULT_COMPUTATION: ComputationInputs = {
  op: 'scan',
  predicate: 'sum',
  dtype: 'int32',
  sizes: '[4, 1000]',
};

/** One device's output against plain JavaScript's. */
export interface ReferenceCheck {
  readonly device: string;
  readonly output: readonly number[];
  readonly reference: readonly number[];
  /** Indices where the device differs from JavaScript (floats: by more than the tolerance). */
  readonly mismatches: readonly number[];
}

export interface ComputationCheck {
  readonly checks: readonly ReferenceCheck[];
  /** The kernels the computation launches, as the first device's code (the GPU's where there is one). */
  readonly code: readonly string[];
}

type Operation = (typeof OPERATIONS)[number];

/** Runs the chosen computation on every device of `devices` and checks each output against plain JS. */
export async function checkComputation(inputs: ComputationInputs, devices: Devices): Promise<ComputationCheck> {
  const op = oneOf(inputs.op, OPERATIONS, 'operation');
  const dtype = oneOf(inputs.dtype, DTYPES, 'dtype') as DType;
  const sizes = parseLiteral(inputs.sizes);
  if (!Array.isArray(sizes) || sizes.length === 0 || !sizes.every((s) => Number.isInteger(s) && (s as number) > 0))
    throw new LoomError(`sizes must be a list of positive integers, as [4, 1000], not ${inputs.sizes}`);
  const shape = sizes as number[];
  const { comp, arrays, expected } = setUp(op, inputs.predicate, dtype, shape);
  const checks: ReferenceCheck[] = [];
  const code: string[][] = [];
  for (const device of [devices.gpu, devices.cpu].filter((d): d is Device => d !== undefined)) {
    const compiled = await comp.compile(device);
    const named = new Map(arrays);
    const result = await compiled(...compiled.signature.map((p) => (p.role === 'o' ? undefined : named.get(p.name))));
    const output = Array.from(result[compiled.signature.find((p) => p.role === 'o')!.name] as HostArray, Number);
    const float = dtype === 'float32';
    checks.push({
      device: device.name,
      output,
      reference: expected,
      mismatches: expected.flatMap((e, k) => (agrees(output[k], e, float) ? [] : [k])),
    });
    code.push(compiled.code());
  }
  return { checks, code: code[0] ?? [] };
}

function setUp(
  op: Operation,
  predicateName: string,
  dtype: DType,
  shape: readonly number[],
): { comp: Computation; arrays: [string, HostArray][]; expected: number[] } {
  const last = shape[shape.length - 1];
  const size = shape.reduce((a, b) => a * b, 1);
  switch (op) {
    case 'reduce':
    case 'scan': {
      const [predicate, combine, empty] = predicateOf(predicateName, dtype);
      const a = randomArray(dtype, size);
      const axes = [shape.length - 1];
      const comp =
        op === 'reduce' ? reduce({ dtype, shape }, predicate, axes) : scan({ dtype, shape }, predicate, { axes });
      const expected: number[] = [];
      for (let row = 0; row < size / last; row++) {
        let acc = empty;
        for (let k = 0; k < last; k++) {
          acc = combine(acc, Number(a[row * last + k]));
          if (op === 'scan') expected.push(acc);
        }
        if (op === 'reduce') expected.push(acc);
      }
      return { comp: comp as unknown as Computation, arrays: [['input', a]], expected };
    }
    case 'transpose': {
      const a = randomArray(dtype, size);
      const expected = new Array<number>(size);
      for (let k = 0; k < size; k++) {
        // k's index in the input, reversed, is its index in the output (of the reversed shape)
        const index: number[] = [];
        for (let d = shape.length - 1, rest = k; d >= 0; d--, rest = Math.floor(rest / shape[d + 1]))
          index[d] = rest % shape[d];
        expected[index.reduceRight((to, i, d) => to * shape[d] + i, 0)] = Number(a[k]);
      }
      return { comp: transpose({ dtype, shape }) as unknown as Computation, arrays: [['input', a]], expected };
    }
    case 'matmul': {
      if (shape.length !== 3)
        throw new LoomError(`matmul takes sizes [n, m, l] (an n×l matrix times an l×m one), not [${shape.join(', ')}]`);
      const [n, m, l] = shape;
      const a = randomArray(dtype, n * l);
      const b = randomArray(dtype, l * m);
      const expected = new Array<number>(n * m).fill(0);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < m; j++) {
          let acc = 0;
          for (let k = 0; k < l; k++)
            acc =
              dtype === 'int32'
                ? (acc + Math.imul(Number(a[i * l + k]), Number(b[k * m + j]))) | 0
                : acc + Number(a[i * l + k]) * Number(b[k * m + j]);
          expected[i * m + j] = acc;
        }
      const comp = matrixMul({ dtype, shape: [n, l] }, { dtype, shape: [l, m] });
      return {
        comp: comp as unknown as Computation,
        arrays: [
          ['matrix_a', a],
          ['matrix_b', b],
        ],
        expected,
      };
    }
  }
}

/** The predicate, the same operation in JS (int32 sums wrap as the device's do), and its empty value. */
function predicateOf(name: string, dtype: DType): [Predicate, (x: number, y: number) => number, number] {
  const int = dtype === 'int32';
  switch (oneOf(name, PREDICATES, 'predicate')) {
    case 'sum':
      return [predicateSum(dtype), (x, y) => (int ? (x + y) | 0 : x + y), 0];
    case 'max':
      return [predicateMax(dtype), Math.max, -Infinity];
    case 'min':
      return [predicateMin(dtype), Math.min, Infinity];
  }
}

function oneOf<T extends string>(value: string, choices: readonly T[], what: string): T {
  if (!choices.includes(value as T)) throw new LoomError(`the ${what} '${value}' is not one of ${choices.join(', ')}`);
  return value as T;
}
