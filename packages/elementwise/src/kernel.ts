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
 *
 * That is the `flat` variant. The others (variants.ts) address the same operands another
 * way: `vector4` counts t in vectors of four and reads each storage as a `vec`-tagged
 * array (`buf0[at_in0, k]`, k the lane: `buf0[at_in0].s2` in OpenCL C), with the
 * offsets and outer strides in vectors (rank 1 on WGSL: `buf0[in0_offset + t, k]`, an
 * affine index that the check before launch proves in bounds, so it needs no guard); `tiled` iterates over (i0, i1) directly, no
 * divisions, and reads a transposed input as a 2-D array `buf1[i1, in1_offset + i0]`
 * whose axis 0 has the stride `in1_stride1`, which is what a local-memory prefetch of
 * a tile needs (affine indices).
 *
 * The instructions are built from expression nodes (core's `assignment`), never printed
 * for `makeKernel` to parse back; the code above is how the kernel prints. With the
 * kernel comes its `LaunchPlan`: where each of its arguments' values comes from, so
 * that the launch (launch.ts) never reconstructs parameter names.
 */
import {
  assignment,
  expr,
  exprType,
  makeKernel,
  globalArg,
  tagArrayAxes,
  valueArg,
  type ArgSpec,
  type DType,
  type Expr,
  type InstructionSpec,
  type LoopKernel,
} from '@loom/core';
import { componentDType, isComplex, isFloating, type TensorDType } from './dtypes.ts';
import { checkLiteralRanges, type LiteralContext } from './literal-range.ts';
import { complex, lowerOutputs, real, storedParts, type LowerEnv, type Value } from './lower.ts';
import type { Payload } from './payload.ts';
import { scheduleVariant, VECTOR_LANES, type VariantName } from './variants.ts';

const { add, binary, cast, float, int, mul, subscript, variable } = expr;

export type InputSpec =
  /** A tensor in storage `storage`, loaded as `as` (its computation dtype, or its own). */
  | {
      readonly kind: 'tensor';
      readonly storage: number;
      readonly dtype: TensorDType;
      readonly as: TensorDType;
      readonly unitInner: boolean;
      /** Read through a local tile (the tiled variant): its stride along task axis 0 is 1. */
      readonly tiled: boolean;
      /** Its stride along task axis 0 is not negative (set for the tiled variant only, which may address it as rows). */
      readonly forwardRows?: boolean;
    }
  /** A scalar passed by value as `as`. */
  | { readonly kind: 'scalar'; readonly as: TensorDType };

export interface OutputSpec {
  readonly storage: number;
  readonly dtype: TensorDType;
  /** Its stride along the innermost task axis is 1 (baked in: plainer, guard-free addressing). */
  readonly unitInner: boolean;
  /** Its stride along task axis 0 is not negative (set for the tiled variant only, which may address it as rows). */
  readonly forwardRows?: boolean;
}

/** Everything that shapes a variant's code. */
export interface KernelSpec {
  readonly variant: VariantName;
  /** vector4: the lanes are a `vec` loop, one vector statement per instruction where it can be (WGSL). */
  readonly vectorStatements?: boolean;
  readonly rank: number;
  /** The dtype of each distinct storage (`buf0`, `buf1`, ...). */
  readonly storages: readonly DType[];
  readonly inputs: readonly InputSpec[];
  readonly outputs: readonly OutputSpec[];
  readonly blockSize: number;
}

/**
 * Where a value argument's value comes from at a launch. Operands are numbered as the
 * task's strides are: the tensor inputs in order, then the outputs.
 */
export type ValueSource =
  /** The number of elements of the task (`per`: counted in groups of that many, the vector variant's vectors). */
  | { readonly from: 'elements'; readonly per?: number }
  /** The task's extent along `axis`. */
  | { readonly from: 'extent'; readonly axis: number; readonly per?: number }
  /** The length, in numbers, of storage `storage` (in whole groups of `per`). */
  | { readonly from: 'storage-length'; readonly storage: number; readonly per?: number }
  /** Where operand `operand` starts in its storage. */
  | { readonly from: 'offset'; readonly operand: number; readonly per?: number }
  /** Operand `operand`'s stride along task axis `axis`. */
  | { readonly from: 'stride'; readonly operand: number; readonly axis: number; readonly per?: number }
  /** Where operand `operand`'s elements along task axis `axis` end: its offset plus that extent (a tiled input's row length). */
  | { readonly from: 'reach'; readonly operand: number; readonly axis: number }
  /** Scalar input `input` as its computation dtype: part 0, or for a complex one part 0 (real) or 1 (imaginary). */
  | { readonly from: 'scalar'; readonly input: number; readonly part: 0 | 1 }
  /** A constant of the payload (non-finite, or -0: the instruction language cannot spell it). */
  | { readonly from: 'constant'; readonly value: number };

/** What a launch passes the variant's kernel, argument by argument. */
export interface LaunchPlan {
  /** The array argument of each distinct storage, in storage order. */
  readonly storages: readonly string[];
  /** The shape each storage's array is passed in: constants, and value arguments by name. */
  readonly storageShapes: readonly (readonly (number | string)[])[];
  /** Every value argument, by name. */
  readonly values: ReadonlyMap<string, ValueSource>;
}

export interface PointwiseKernel {
  readonly spec: KernelSpec;
  readonly kernel: LoopKernel;
  readonly plan: LaunchPlan;
}

export const specKey = (spec: KernelSpec): string => JSON.stringify(spec);

const operandName = (kind: 'in' | 'out', k: number) => `${kind}${k}`;

/** The flat index of an operand's element at the current multi-index (for `vector4`: of its vector). */
function elementIndex(prefix: string, rank: number, unitInner: boolean): Expr {
  let e: Expr = variable(`${prefix}_offset`);
  for (let d = 0; d < rank; d++) {
    const index = variable(rank === 1 ? 't' : `i${d}`);
    e = add(e, unitInner && d === rank - 1 ? index : mul(variable(`${prefix}_stride${d}`), index));
  }
  return e;
}

/** The stored numbers of one element: itself, or a complex's two parts. */
function elementParts(buffer: string, index: Expr, dtype: TensorDType): Expr[] {
  if (!isComplex(dtype)) return [subscript(buffer, [index])];
  const first = mul(int(2), index);
  return [subscript(buffer, [first]), subscript(buffer, [add(first, int(1))])];
}

export function buildKernel(payload: Payload, spec: KernelSpec, name: string): PointwiseKernel {
  const { rank, variant } = spec;
  const instructions: InstructionSpec[] = [];
  const ids = { index: [] as string[], load: [] as string[], calc: [] as string[] };
  const storages = spec.storages.map((_, k) => `buf${k}`);
  // the vector variant counts vectors, not elements: sizes, offsets and strides in groups of four
  const per = variant === 'vector4' ? { per: VECTOR_LANES } : {};
  const tiledStorages = new Set(spec.inputs.flatMap((i) => (i.kind === 'tensor' && i.tiled ? [i.storage] : [])));
  const rowStorages = rowLayoutStorages(spec);
  const storageShapes = storages.map((s, k) =>
    tiledStorages.has(k)
      ? ['size1', `${s}_reach`]
      : rowStorages.has(k)
        ? ['size0', `${s}_reach`]
        : variant === 'vector4'
          ? [`${s}_size`, VECTOR_LANES]
          : [`${s}_size`],
  );
  // a 2-D storage ends where its operand's elements end (`reach`, set by the launch): what the
  // guards need to prove every access in bounds, so that the kernel has none
  const assumptions: string[] = [];
  const args: ArgSpec[] = spec.storages.map((dtype, k) => globalArg(storages[k], { shape: storageShapes[k], dtype }));
  /** The array axis tags a variant needs once the kernel is made (`vec` lanes, a tiled input's strides). */
  const axisTags = new Map<string, string>();
  if (variant === 'vector4') for (const s of storages) axisTags.set(s, 'c,vec');
  // the int32 value arguments (sizes, strides, offsets), each with where its value comes from
  const indexParams = new Map<string, ValueSource>(variant === 'tiled' ? [] : [['n', { from: 'elements', ...per }]]);
  spec.storages.forEach((_, k) => {
    if (!tiledStorages.has(k) && !rowStorages.has(k))
      indexParams.set(`${storages[k]}_size`, { from: 'storage-length', storage: k, ...per });
  });
  const types = new Map<string, DType>();
  // every dependency is spelled out: the single-writer guess would see loads wait for stores of in-place outputs
  const after = (...lists: string[][]) => lists.flat();
  let operand = 0;
  /** An operand's strides (the innermost one is baked in when it is 1) and offset. */
  const addressParams = (prefix: string, unitInner: boolean, storage: number, tiled = false) => {
    for (let d = 0; d < rank; d++) {
      const baked = (unitInner && d === rank - 1) || (tiled && d === 0);
      if (!baked) indexParams.set(`${prefix}_stride${d}`, { from: 'stride', operand, axis: d, ...per });
    }
    indexParams.set(`${prefix}_offset`, { from: 'offset', operand, ...per });
    if (tiled || rowStorages.has(storage)) {
      // a tiled input's rows run along task axis 0, an untiled operand's along axis 1
      const axis = tiled ? 0 : 1;
      const reach = `${storages[storage]}_reach`;
      indexParams.set(reach, { from: 'reach', operand, axis });
      assumptions.push(`${prefix}_offset >= 0 and ${reach} = ${prefix}_offset + size${axis}`);
    }
    operand++;
  };
  /** The stored numbers of an operand's element here: one subscript, or a complex's two. */
  const access = (prefix: string, storage: number, dtype: TensorDType, unitInner: boolean): Expr[] => {
    const buffer = storages[storage];
    if (tiledStorages.has(storage)) {
      // the tile's footprint must be affine: the outer stride goes to the array's axis 0
      axisTags.set(buffer, `stride:${prefix}_stride1,stride:1`);
      return [subscript(buffer, [variable('i1'), add(variable(`${prefix}_offset`), variable('i0'))])];
    }
    if (rowStorages.has(storage)) {
      // rows of the task: `buf[i0, offset + i1]`, the operand's outer stride the array's axis 0
      axisTags.set(buffer, `stride:${prefix}_stride0,stride:1`);
      return [subscript(buffer, [variable('i0'), add(variable(`${prefix}_offset`), variable('i1'))])];
    }
    if (variant !== 'vector4') return elementParts(buffer, elementIndex(prefix, rank, unitInner), dtype);
    // vector statements of rank 1 (WGSL): the vector's index `offset + t` is affine in the loop
    // index, so the check before launch proves it inside the array's declared shape, and every
    // launch refuses a buffer smaller than that shape: no guard around the loads and the stores.
    // (Unrolled lanes keep the temporary below: OpenCL prints `.sK` only from `4*at + k`.)
    if (rank === 1 && spec.vectorStatements)
      return [subscript(buffer, [elementIndex(prefix, rank, true), variable('k')])];
    // the vector's index in a temporary of its own: the code generator then sees `4*at + k`
    // and prints the lane `buf[at].sK` (a product of a stride and an index would hide it)
    instructions.push(
      assignment(variable(`at_${prefix}`), elementIndex(prefix, rank, true), {
        id: `address_${prefix}`,
        temporary: 'int32',
        dependsOn: after(ids.index),
      }),
    );
    ids.index.push(`address_${prefix}`);
    types.set(`at_${prefix}`, 'int32');
    return [subscript(buffer, [variable(`at_${prefix}`), variable('k')])];
  };

  // the multi-index, from the flat task index t (rank 1 uses t itself), peeled innermost first:
  // q_{d-1} = q_d / size_d and i_d = q_d - size_d*q_{d-1}, one division per axis. t is never
  // negative, so C's truncating `/` is floor division: no Python-semantics helpers here.
  // The tiled variant iterates over (i0, i1) itself
  if (variant === 'tiled') {
    indexParams.set('size0', { from: 'extent', axis: 0 });
    indexParams.set('size1', { from: 'extent', axis: 1 });
  } else if (rank >= 2) {
    let q = 't';
    for (let d = rank - 1; d >= 1; d--) {
      const size = variable(`size${d}`);
      indexParams.set(`size${d}`, { from: 'extent', axis: d, ...(d === rank - 1 ? per : {}) });
      instructions.push(
        assignment(variable(`q${d - 1}`), binary('/', variable(q), size), {
          id: `quotient${d - 1}`,
          temporary: 'int32',
        }),
      );
      instructions.push(
        assignment(variable(`i${d}`), binary('-', variable(q), mul(size, variable(`q${d - 1}`))), {
          id: `index${d}`,
          temporary: 'int32',
        }),
      );
      ids.index.push(`quotient${d - 1}`, `index${d}`);
      types.set(`q${d - 1}`, 'int32');
      types.set(`i${d}`, 'int32');
      q = `q${d - 1}`;
    }
    instructions.push(assignment(variable('i0'), variable('q0'), { id: 'index0', temporary: 'int32' }));
    ids.index.push('index0');
    types.set('i0', 'int32');
  }

  // inputs: tensors loaded into temporaries, scalars passed by value
  const params = new Map<string, Value>();
  const scalarArgs: ArgSpec[] = [];
  const scalarSources = new Map<string, ValueSource>();
  spec.inputs.forEach((input, k) => {
    const name = operandName('in', k);
    const as = input.as;
    const part = componentDType(as);
    if (input.kind === 'scalar') {
      const names = isComplex(as) ? [`${name}_re`, `${name}_im`] : [name];
      names.forEach((n, p) => {
        scalarArgs.push(valueArg(n, part));
        scalarSources.set(n, { from: 'scalar', input: k, part: p as 0 | 1 });
        types.set(n, part);
      });
      params.set(
        payload.params[k],
        isComplex(as) ? complex(variable(names[0]), variable(names[1]), as) : real(variable(name)),
      );
      return;
    }
    addressParams(name, input.unitInner, input.storage, input.tiled);
    const stored = access(name, input.storage, input.dtype, input.unitInner);
    const load = (target: string, source: Expr) => {
      const value = componentDType(input.dtype) === part ? source : cast(part, source);
      instructions.push(
        assignment(variable(target), value, { id: `load_${target}`, temporary: part, dependsOn: after(ids.index) }),
      );
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
  const constants = new Map<string, ValueSource>();
  // integer literals that do not fit the integer dtype they meet are refused (literal-range.ts)
  const literals: LiteralContext = {
    typeOf: (n) => types.get(n),
    spanOf: (literal) => payload.literalSpans?.get(literal),
  };
  const constantType: DType = spec.inputs.some((i) => componentDType(i.as) === 'float64') ? 'float64' : 'float32';
  const env: LowerEnv = {
    params,
    typeOf: (n) => types.get(n),
    constant: (value) => {
      const n = `const${constants.size}`;
      constants.set(n, { from: 'constant', value });
      types.set(n, constantType);
      return variable(n);
    },
    checkLiterals: (e) => checkLiteralRanges(e, literals),
    bind: (e) => {
      if (e.kind === 'var' || e.kind === 'int' || e.kind === 'float') return e;
      // a weak value (literals, and conditionals between them: `Math.hypot(x, Math.PI)`'s
      // |PI|) stays an expression: a temporary would need a dtype, where a literal takes the
      // dtype of what it meets (float64 beside float64 data, not the float32 of a weak float)
      if (exprType(e, env.typeOf).weak) return e;
      const n = `tmp${ids.calc.length}`;
      checkLiteralRanges(e, literals);
      const dtype = temporaryType(e, env.typeOf);
      instructions.push(
        assignment(variable(n), e, {
          id: `calc_${n}`,
          temporary: dtype,
          dependsOn: after(ids.index, ids.load, ids.calc),
        }),
      );
      ids.calc.push(`calc_${n}`);
      types.set(n, dtype);
      return variable(n);
    },
  };

  // outputs: stored after every load (nosync: each work-item reads and writes only its own elements)
  const values = lowerOutputs(payload.outputs, env);
  spec.outputs.forEach((output, k) => {
    const name = operandName('out', k);
    addressParams(name, output.unitInner, output.storage);
    const value = values[k];
    const parts = storedParts(value, output.dtype, env);
    for (const part of parts) checkLiteralRanges(part, literals, componentDType(output.dtype));
    const targets = access(name, output.storage, output.dtype, output.unitInner);
    targets.forEach((target, p) => {
      const suffix = targets.length > 1 ? (p === 0 ? '_re' : '_im') : '';
      instructions.push(
        assignment(target, parts[p], {
          id: `store_${name}${suffix}`,
          dependsOn: after(ids.index, ids.load, ids.calc),
          noSyncWith: ids.load.length ? ['load_*'] : [],
        }),
      );
    });
  });

  const allArgs = [
    ...args,
    ...scalarArgs,
    ...[...constants.keys()].map((n) => valueArg(n, constantType)),
    ...[...indexParams.keys()].map((n) => valueArg(n, 'int32')),
  ];
  const domain = {
    flat: '{ [t]: 0 <= t < n }',
    vector4: `{ [t, k]: 0 <= t < n and 0 <= k < ${VECTOR_LANES} }`,
    tiled: '{ [i0, i1]: 0 <= i0 < size0 and 0 <= i1 < size1 }',
  }[variant];
  let kernel = makeKernel(domain, instructions, allArgs, {
    name,
    ...(assumptions.length ? { assumptions: assumptions.join(' and ') } : {}),
  });
  for (const [array, tags] of axisTags) kernel = tagArrayAxes(kernel, array, tags);
  kernel = scheduleVariant(
    kernel,
    variant,
    spec.blockSize,
    [...tiledStorages].map((k) => storages[k]),
    spec.vectorStatements,
  );
  const plan: LaunchPlan = {
    storages,
    storageShapes,
    values: new Map([...scalarSources, ...constants, ...indexParams]),
  };
  return { spec, kernel, plan };
}

/**
 * The storages the tiled variant addresses as rows of the task, a 2-D array `[size0, reach]`
 * whose axis 0 has the operand's stride: those of a real operand with stride 1 along the
 * inner axis and a stride along the outer one that is not negative (an array's layout has
 * none), the only one to view its storage. Its accesses are then affine with a known
 * extent, proven in bounds (the hand-written transpose-add has no guards; the flat
 * addressing's `0 <= at < size` guard on every load and store cost the tiled variant a third
 * of its bandwidth's worth of instructions).
 */
function rowLayoutStorages(spec: KernelSpec): Set<number> {
  if (spec.variant !== 'tiled') return new Set();
  const operands = [
    ...spec.inputs.flatMap((i) => (i.kind === 'tensor' ? [{ ...i, output: false }] : [])),
    ...spec.outputs.map((o) => ({ ...o, tiled: false, output: true })),
  ];
  const users = new Map<number, number>();
  for (const o of operands) users.set(o.storage, (users.get(o.storage) ?? 0) + 1);
  return new Set(
    operands
      .filter(
        (o) => !o.tiled && o.unitInner && o.forwardRows === true && !isComplex(o.dtype) && users.get(o.storage) === 1,
      )
      .map((o) => o.storage),
  );
}

/** The dtype a temporary holding `e` is declared with: the core's type for it. */
function temporaryType(e: Expr, typeOf: LowerEnv['typeOf']): DType {
  const t = exprType(e, typeOf);
  // only literals are weak here; a float one alone would make a float64 temporary
  return t.weak && isFloating(t.dtype) ? 'float32' : t.dtype;
}
