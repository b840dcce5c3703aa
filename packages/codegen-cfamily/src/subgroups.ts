/**
 * Subgroup functions (core's expr/subgroup-functions.ts) in C: a language's built-ins (OpenCL's
 * `sub_group_reduce_add` of cl_khr_subgroups), or, for a subgroup of a fixed width whose lanes
 * exchange values by shuffles (a CUDA warp's `__shfl_xor_sync`, NVIDIA's PTX `shfl.sync` in
 * OpenCL C), helpers built from the dialect's three shuffles: a reduction by butterfly
 * (`log2(width)` exchanges, every lane ending with the same value, since `+`, `min` and `max`
 * are commutative), an inclusive scan by Hillis and Steele's shifts up, an exclusive one its
 * inclusive result shifted up one lane. Core checked the dtype, the uniform control flow and
 * that a constant work-group is whole subgroups (codegen/subgroup-uses.ts).
 */
import {
  InternalError,
  isFloat,
  subgroupFunction,
  unreachable,
  type DType,
  type SubgroupFunctionName,
} from '@loom/core';
import type { CDialect } from './dialect.ts';

/** How a shuffle reads another lane: the lane named (`idx`), own lane xor the mask (`bfly`), own lane minus the delta (`up`, own value on the lanes below it). */
export type ShuffleMode = 'idx' | 'bfly' | 'up';

/** How a C-family language spells subgroup functions (`CDialect.subgroups`). */
export type SubgroupSpelling =
  | {
      readonly kind: 'builtins';
      /** The built-in call of `fn` on the printed arguments (a lane is printed as int32), or its id. */
      call(fn: SubgroupFunctionName, args: readonly string[]): string;
      /** The extensions it must enable (`#pragma OPENCL EXTENSION ...: enable`). */
      extensions(fn: SubgroupFunctionName): readonly string[];
    }
  | {
      readonly kind: 'shuffles';
      /** The subgroup's lanes: a power of two. */
      readonly width: number;
      /** The work-item's linear local id, as int: subgroups are consecutive runs of it. */
      readonly linearLocalId: string;
      /**
       * `value` (of a 32- or 64-bit dtype `t`) read from another lane (`mode`, `arg` an int), with
       * the helpers that call needs, by name → definition.
       */
      shuffle(
        mode: ShuffleMode,
        t: DType,
        value: string,
        arg: string,
      ): { readonly text: string; readonly helpers: readonly (readonly [string, string])[] };
    };

/** What printing a subgroup call needs of the printer: its helpers and extensions. */
export interface SubgroupSink {
  readonly helpers: Map<string, string>;
  readonly extensions: Set<string>;
}

/**
 * The C of a call of subgroup function `fn`: `args` printed already (a value in `t`, a lane in
 * int32), in the dialect's spelling, its helpers and extensions recorded in `sink`.
 */
export function printSubgroupCall(
  fn: SubgroupFunctionName,
  args: readonly string[],
  t: DType,
  dialect: CDialect,
  sink: SubgroupSink,
): string {
  const spelling = dialect.subgroups;
  if (!spelling) throw new InternalError(`${dialect.language} has no subgroup functions (core refuses ${fn} first)`);
  if (spelling.kind === 'builtins') {
    for (const x of spelling.extensions(fn)) sink.extensions.add(x);
    return spelling.call(fn, args);
  }
  const f = subgroupFunction(fn);
  const { width, linearLocalId } = spelling;
  const shuffle = (mode: ShuffleMode, value: string, arg: string) => {
    const s = spelling.shuffle(mode, t, value, arg);
    for (const [name, definition] of s.helpers) if (!sink.helpers.has(name)) sink.helpers.set(name, definition);
    return s.text;
  };
  switch (f.kind) {
    case 'id':
      return fn === 'subgroupSize'
        ? String(width)
        : fn === 'subgroupLocalId'
          ? `(${linearLocalId} & ${width - 1})`
          : `(${linearLocalId} / ${width})`;
    case 'shuffle':
    case 'broadcast':
      return shuffle('idx', args[0], args[1]);
    case 'shuffle-xor':
      return shuffle('bfly', args[0], args[1]);
    case 'reduce':
    case 'scan': {
      const name = `loom_subgroup_${fn
        .slice('subgroup'.length)
        .replace(/([a-z])([A-Z])/g, '$1_$2')
        .toLowerCase()}_${t}`;
      if (!sink.helpers.has(name)) {
        const ct = dialect.type(t);
        const combine = combiner(f.op ?? 'add', t, dialect);
        const lane = `(${linearLocalId} & ${width - 1})`;
        const body =
          f.kind === 'reduce'
            ? [
                `for (int m = ${width / 2}; m >= 1; m /= 2)`,
                '{',
                `  ${ct} const y = ${shuffle('bfly', 'x', 'm')};`,
                `  x = ${combine('x', 'y')};`,
                '}',
                'return x;',
              ]
            : [
                `int const lane = ${lane};`,
                `for (int d = 1; d < ${width}; d *= 2)`,
                '{',
                `  ${ct} const y = ${shuffle('up', 'x', 'd')};`,
                `  if (lane >= d) x = ${combine('x', 'y')};`,
                '}',
                ...(f.inclusive
                  ? ['return x;']
                  : [`${ct} const before = ${shuffle('up', 'x', '1')};`, `return lane == 0 ? (${ct}) 0 : before;`]),
              ];
        const definition = [
          `${dialect.helperQualifier} ${ct} ${name}(${ct} x)`,
          '{',
          ...body.map((l) => `  ${l}`),
          '}',
        ].join('\n');
        sink.helpers.set(name, definition);
      }
      return `${name}(${args[0]})`;
    }
    default:
      return unreachable(f.kind);
  }
}

/** `a op b` in C for dtype `t`: a signed sum in the unsigned type, where C defines its wrapping. */
function combiner(op: 'add' | 'min' | 'max', t: DType, dialect: CDialect): (a: string, b: string) => string {
  const ct = dialect.type(t);
  if (op === 'min') return (a, b) => `(${b} < ${a} ? ${b} : ${a})`;
  if (op === 'max') return (a, b) => `(${b} > ${a} ? ${b} : ${a})`;
  if (isFloat(t) || t.startsWith('uint')) return (a, b) => `${a} + ${b}`;
  const ut = dialect.type(t === 'int64' ? 'uint64' : 'uint32');
  return (a, b) => `(${ct}) ((${ut}) ${a} + (${ut}) ${b})`;
}
