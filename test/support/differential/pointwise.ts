/**
 * Differential cases for pointwise payloads (issue 24, item 8): a random JavaScript payload
 * over two tensors of random dtypes, with literals of every kind (integers, floats, `Math`
 * constants, booleans) and loose and strict comparisons, run on a device and compared with
 * the same payload run as plain JavaScript element by element, on the inputs as the
 * computation dtype loads them (a bool computation sees booleans, any other numbers), its
 * result converted to the output dtype (elementwise-reference.ts). Floats are compared
 * within a few ulps of the computation dtype: JavaScript computes in doubles throughout.
 */
import type { Device } from '@loom/core';
import { pointwise, tensor, type TensorDType } from '@loom/elementwise';
import { numbers, toDType } from '../elementwise-reference.ts';
import type { FeatureSet } from './features.ts';
import { Rng } from './random.ts';

/** One generated payload and its inputs. */
export interface PointwiseCase {
  readonly source: string;
  readonly dtypes: readonly [TensorDType, TensorDType];
  readonly inputs: readonly [number[], number[]];
}

const N = 16;

/** The computation dtype DEFAULT promotion gives two tensors of these dtypes (the few this generator draws). */
function computation(a: TensorDType, b: TensorDType): TensorDType {
  for (const t of ['float64', 'float32', 'int32', 'bool'] as const) if (a === t || b === t) return t;
  return a;
}

/** A random case for `seed`, drawing only what `features` enables. */
export function pointwiseCase(seed: number, features: FeatureSet, wide: boolean): PointwiseCase {
  const rng = new Rng(seed);
  const kinds: TensorDType[] = features.has('pointwiseMixedDTypes') ? ['float32', 'int32', 'bool'] : ['float32'];
  if (wide && features.has('wideTypes')) kinds.push('float64');
  const dtypes = [rng.pick(kinds), rng.pick(kinds)] as const;
  const computed = computation(...dtypes);
  // a weak float literal takes the computation's dtype (PyTorch's rule, the README's): beside
  // float32 data only values float32 holds exactly mean the same as in doubles; beside float64
  // data every double does (1 / 3 must stay a double there: the bug this feature draws)
  const weak = !features.has('pointwiseWeakLiterals')
    ? []
    : computed === 'float64'
      ? ['0.5', '1 / 3', 'Math.PI', 'Math.E', 'Math.SQRT2']
      : computed === 'float32'
        ? ['0.5', '1.25', '-0.375']
        : [];
  const literals = ['0', '1', '2', '-3', ...weak];
  const truths = ['true', 'false'];
  const operand = (): string => (rng.chance(0.6) ? rng.pick(['x', 'y']) : rng.pick(literals));
  const number = (depth: number): string => {
    if (depth === 0 || rng.chance(0.3)) return operand();
    if (rng.chance(0.2)) return `(${truth(depth - 1)} ? ${number(depth - 1)} : ${number(depth - 1)})`;
    return `(${number(depth - 1)} ${rng.pick(['+', '-', '*'])} ${number(depth - 1)})`;
  };
  const truth = (depth: number): string => {
    const strict = features.has('pointwiseStrictEquality');
    const ops = ['<', '>', '==', '!=', ...(strict ? ['===', '!=='] : [])];
    if (depth > 0 && strict && rng.chance(0.3))
      return `(${truth(depth - 1)} ${rng.pick(['===', '!==', '==', '!='])} ${rng.pick([...truths, '1', '0', operand()])})`;
    return `(${operand()} ${rng.pick(ops)} ${rng.pick([...literals, ...truths, 'x', 'y'])})`;
  };
  const body = rng.chance(0.4) ? truth(2) : number(3);
  const sample = (dtype: TensorDType) =>
    Array.from({ length: N }, () =>
      dtype === 'bool'
        ? rng.int(0, 1)
        : dtype === 'int32'
          ? rng.int(-4, 4)
          : rng.pick([0, 1, -1, 2, 0.5, -2.5, 3, 1 / 3, rng.next() * 8 - 4]),
    );
  return { source: `(x, y) => ${body}`, dtypes, inputs: [sample(dtypes[0]), sample(dtypes[1])] };
}

/** The case's expected output: the payload as plain JavaScript on the loaded inputs, converted to the output dtype. */
export function pointwiseReference(c: PointwiseCase): { dtype: TensorDType; values: number[] } {
  const dtype = computation(...c.dtypes);
  const fn = new Function(`return ${c.source}`)() as (x: unknown, y: unknown) => unknown;
  const load = (v: number, own: TensorDType) => (dtype === 'bool' ? v !== 0 : toDType(toDType(v, own), dtype));
  const values = c.inputs[0].map((_, k) =>
    toDType(Number(fn(load(c.inputs[0][k], c.dtypes[0]), load(c.inputs[1][k], c.dtypes[1]))), dtype),
  );
  return { dtype, values };
}

/** Runs the case on `device`: undefined when it agrees with plain JavaScript, else what differs. */
export async function runPointwiseCase(c: PointwiseCase, device: Device): Promise<string | undefined> {
  const expected = pointwiseReference(c);
  const f = pointwise({}, c.source);
  const out = await f(
    tensor(c.inputs[0], undefined, { device, dtype: c.dtypes[0] }),
    tensor(c.inputs[1], undefined, { device, dtype: c.dtypes[1] }),
  );
  if (out.dtype !== expected.dtype)
    return `${device.name}: ${c.source} on ${c.dtypes.join(', ')}: output ${out.dtype}, expected ${expected.dtype}`;
  const actual = numbers(await out.toArray(), out.dtype);
  const ulp = expected.dtype === 'float32' ? 2 ** -20 : 2 ** -48;
  const bad = expected.values.findIndex((e, k) => {
    const a = actual[k];
    return Number.isNaN(e)
      ? !Number.isNaN(a)
      : !(a === e || (expected.dtype.startsWith('float') && Math.abs(a - e) <= ulp * Math.max(1, Math.abs(e))));
  });
  if (bad < 0) return undefined;
  return `${device.name}: ${c.source} on ${c.dtypes.join(', ')}, x = ${c.inputs[0][bad]}, y = ${c.inputs[1][bad]}: got ${actual[bad]}, plain JS says ${expected.values[bad]}`;
}
