/**
 * One variant of a pointwise function as an ordinary Loom kernel: a task rank, the
 * dtypes, and which operands share storage fix the code; shapes, strides and
 * offsets are arguments, so one variant serves every call of its kind.
 *
 * The task space is flat, `{ [t]: 0 <= t < n }`, split into work-groups of
 * `blockSize` work-items (`t_outer` on g.0, `t_inner` on l.0), each handling one
 * element — the 1-D partition the seed describes. A rank-r variant recovers the
 * multi-index from t, innermost axis first, one division per axis, and each
 * operand is a flat array with its own offset and strides, so broadcast (0),
 * negative and arbitrary strides all read the same way:
 *
 *     <int32> q0 = t / size1
 *     <int32> i1 = t - size1*q0
 *     <int32> i0 = q0
 *     <float32> in0 = float32(buf0[in0_offset + in0_stride0*i0 + in0_stride1*i1])
 *     <float32> in1 = float32(buf1[in1_offset + in1_stride0*i0 + in1_stride1*i1])
 *     buf2[out0_offset + out0_stride0*i0 + out0_stride1*i1] = in0 + in1*in2
 *
 * Inputs are loaded (and cast to the computation dtype) before any output is
 * stored, so an output that is also an input (in place) reads the old value. Each
 * storage is one kernel argument however many operands view it: WebGPU forbids
 * binding one buffer twice when it is written, and C's restrict promises no aliasing.
 */
import { expr, exprType, makeKernel, globalArg, printExpr, splitIname, valueArg, type ArgSpec, type DType, type Expr, type LoopKernel } from '@loom/core';
import { componentDType, isComplex, isFloating, type TensorDType } from './dtypes.ts';
import { complex, lower, real, storedParts, type LowerEnv, type Value } from './lower.ts';
import type { Payload } from './payload.ts';

const { add, float, int, mul, variable } = expr;

export type InputSpec =
  /** A tensor in storage `storage`, loaded as `as` (its computation dtype, or its own). */
  | { readonly kind: 'tensor'; readonly storage: number; readonly dtype: TensorDType; readonly as: TensorDType; readonly unitInner: boolean }
  /** A scalar passed by value as `as`. */
  | { readonly kind: 'scalar'; readonly as: TensorDType };

export interface OutputSpec {
  readonly storage: number;
  readonly dtype: TensorDType;
  /** Its stride along the innermost task axis is 1 (baked in: plainer, guard-free addressing). */
  readonly unitInner: boolean;
}

/** Everything that shapes a variant's code. */
export interface KernelSpec {
  readonly rank: number;
  /** The dtype of each distinct storage (`buf0`, `buf1`, ...). */
  readonly storages: readonly DType[];
  readonly inputs: readonly InputSpec[];
  readonly outputs: readonly OutputSpec[];
  readonly blockSize: number;
}

export interface PointwiseKernel {
  readonly spec: KernelSpec;
  readonly kernel: LoopKernel;
  /** Non-finite constants of the payload, passed as value arguments by these names. */
  readonly constants: ReadonlyMap<string, number>;
}

export const specKey = (spec: KernelSpec): string => JSON.stringify(spec);

const operandName = (kind: 'in' | 'out', k: number) => `${kind}${k}`;

/** Elements per work-item (unrolled, a work-group apart). */
const ELEMENTS_PER_ITEM = 4;

/** The flat index of an operand's element at the current multi-index. */
function elementIndex(prefix: string, rank: number, unitInner: boolean): Expr {
  let e: Expr = variable(`${prefix}_offset`);
  for (let d = 0; d < rank; d++) {
    const index = variable(rank === 1 ? 't' : `i${d}`);
    e = add(e, unitInner && d === rank - 1 ? index : mul(variable(`${prefix}_stride${d}`), index));
  }
  return e;
}

/** The stride parameters an operand needs (the innermost one is baked in when it is 1). */
export function strideParams(prefix: string, rank: number, unitInner: boolean): string[] {
  return Array.from({ length: rank }, (_, d) => `${prefix}_stride${d}`).filter((_, d) => !(unitInner && d === rank - 1));
}

/** The stored numbers of one element: itself, or a complex's two parts. */
function elementParts(buffer: string, index: Expr, dtype: TensorDType): Expr[] {
  if (!isComplex(dtype)) return [expr.subscript(buffer, [index])];
  const first = mul(int(2), index);
  return [expr.subscript(buffer, [first]), expr.subscript(buffer, [add(first, int(1))])];
}

export function buildKernel(payload: Payload, spec: KernelSpec, name: string): PointwiseKernel {
  const { rank } = spec;
  const lines: string[] = [];
  const ids = { index: [] as string[], load: [] as string[], calc: [] as string[] };
  const args: ArgSpec[] = spec.storages.map((dtype, k) => globalArg(`buf${k}`, { shape: [`buf${k}_size`], dtype }));
  const indexParams = ['n', ...spec.storages.map((_, k) => `buf${k}_size`)];
  const types = new Map<string, DType>();
  // every dependency is spelled out (dep=*...): the single-writer guess would see loads wait for stores of in-place outputs
  const deps = (...lists: string[][]) => `dep=*${lists.flat().join(':')}`;

  // the multi-index, from the flat task index t (rank 1 uses t itself), peeled innermost first:
  // q_{d-1} = q_d / size_d and i_d = q_d - size_d*q_{d-1}, one division per axis. t is never
  // negative, so C's truncating `/` is floor division: no Python-semantics helpers here
  if (rank >= 2) {
    let q = 't';
    for (let d = rank - 1; d >= 1; d--) {
      indexParams.push(`size${d}`);
      lines.push(`<int32> q${d - 1} = ${q} / size${d} {id=quotient${d - 1}}`);
      lines.push(`<int32> i${d} = ${q} - size${d}*q${d - 1} {id=index${d}}`);
      ids.index.push(`quotient${d - 1}`, `index${d}`);
      types.set(`q${d - 1}`, 'int32');
      types.set(`i${d}`, 'int32');
      q = `q${d - 1}`;
    }
    lines.push(`<int32> i0 = q0 {id=index0}`);
    ids.index.push('index0');
    types.set('i0', 'int32');
  }

  // inputs: tensors loaded into temporaries, scalars passed by value
  const params = new Map<string, Value>();
  const scalarArgs: ArgSpec[] = [];
  spec.inputs.forEach((input, k) => {
    const name = operandName('in', k);
    const as = input.as;
    const part = componentDType(as);
    if (input.kind === 'scalar') {
      const names = isComplex(as) ? [`${name}_re`, `${name}_im`] : [name];
      for (const n of names) {
        scalarArgs.push(valueArg(n, part));
        types.set(n, part);
      }
      params.set(payload.params[k], isComplex(as) ? complex(variable(names[0]), variable(names[1]), as) : real(variable(name)));
      return;
    }
    indexParams.push(...strideParams(name, rank, input.unitInner));
    indexParams.push(`${name}_offset`);
    const stored = elementParts(`buf${input.storage}`, elementIndex(name, rank, input.unitInner), input.dtype);
    const load = (target: string, source: Expr) => {
      const value = componentDType(input.dtype) === part ? printExpr(source) : `${part}(${printExpr(source)})`;
      lines.push(`<${part}> ${target} = ${value} {id=load_${target}, ${deps(ids.index)}}`);
      ids.load.push(`load_${target}`);
      types.set(target, part);
    };
    if (isComplex(as)) {
      // a real tensor in a complex computation has no imaginary part to load
      load(`${name}_re`, stored[0]);
      if (stored[1]) load(`${name}_im`, stored[1]);
      params.set(payload.params[k], complex(variable(`${name}_re`), stored[1] ? variable(`${name}_im`) : float(0), as));
    } else {
      load(name, stored[0]);
      params.set(payload.params[k], real(variable(name)));
    }
  });

  // the payload, lowered for these dtypes; shared subexpressions go to temporaries
  const constants = new Map<string, number>();
  const constantType: DType = spec.inputs.some((i) => componentDType(i.as) === 'float64') ? 'float64' : 'float32';
  const env: LowerEnv = {
    params,
    typeOf: (n) => types.get(n),
    constant: (value) => {
      const n = `const${constants.size}`;
      constants.set(n, value);
      types.set(n, constantType);
      return variable(n);
    },
    bind: (e) => {
      if (e.kind === 'var' || e.kind === 'int' || e.kind === 'float') return e;
      const n = `tmp${ids.calc.length}`;
      const dtype = temporaryType(e, env.typeOf);
      lines.push(`<${dtype}> ${n} = ${printExpr(e)} {id=calc_${n}, ${deps(ids.index, ids.load, ids.calc)}}`);
      ids.calc.push(`calc_${n}`);
      types.set(n, dtype);
      return variable(n);
    },
  };

  // outputs: stored after every load (nosync: each work-item reads and writes only its own elements)
  spec.outputs.forEach((output, k) => {
    const name = operandName('out', k);
    indexParams.push(...strideParams(name, rank, output.unitInner));
    indexParams.push(`${name}_offset`);
    const value = lower(payload.outputs[k], env);
    const parts = storedParts(value, output.dtype, env);
    const targets = elementParts(`buf${output.storage}`, elementIndex(name, rank, output.unitInner), output.dtype);
    targets.forEach((target, p) => {
      const suffix = targets.length > 1 ? (p === 0 ? '_re' : '_im') : '';
      const nosync = ids.load.length ? ', nosync=load_*' : '';
      lines.push(`${printExpr(target)} = ${printExpr(parts[p])} {id=store_${name}${suffix}, ${deps(ids.index, ids.load, ids.calc)}${nosync}}`);
    });
  });

  const allArgs = [
    ...args,
    ...scalarArgs,
    ...[...constants.keys()].map((n) => valueArg(n, constantType)),
    ...[...new Set(indexParams)].map((n) => valueArg(n, 'int32')),
  ];
  let kernel = makeKernel('{ [t]: 0 <= t < n }', lines, allArgs, { name });
  // each work-item handles ELEMENTS_PER_ITEM elements a work-group apart (t = G*g + B*u + l):
  // loads stay coalesced and every work-item keeps several independent loads in flight
  kernel = splitIname(kernel, 't', spec.blockSize * ELEMENTS_PER_ITEM, { outerTag: 'g.0' });
  kernel = splitIname(kernel, 't_inner', spec.blockSize, { outerTag: 'ilp', innerTag: 'l.0' });
  return { spec, kernel, constants };
}

/** The dtype a temporary holding `e` is declared with: the core's type for it. */
function temporaryType(e: Expr, typeOf: LowerEnv['typeOf']): DType {
  const t = exprType(e, typeOf);
  // only literals are weak here; a float one alone would make a float64 temporary
  return t.weak && isFloating(t.dtype) ? 'float32' : t.dtype;
}
