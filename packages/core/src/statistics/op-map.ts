/**
 * `getOpMap(knl, options)`: the arithmetic operations a kernel performs, by dtype and
 * kind, as loopy's `get_op_map` counts them: on the kernel after preprocessing (typed,
 * reductions realized), each operation of each instruction once per sub-group per run.
 *
 *  - `+` and `-` are `add`, `*` is `mul` (a factor -1 is free, as is a negation),
 *    `/`, `//` and `%` are `div`, `**` is `pow`, a call of `f` is `func:f`;
 *  - an atomic fetch is the update it makes, as the `{atomic}` update written out is counted:
 *    `atomicAdd` and `atomicSub` an `add`, `atomicMin` `func:min`, `atomicMax` `func:max`,
 *    an exchange nothing;
 *  - comparisons, logic, casts and the choice of `if` cost nothing, but both branches of
 *    an `if` are counted (as loopy does);
 *  - operations in array indices are counted unless `countWithinSubscripts` is false.
 */
import { compiledKernel } from '../program/resolve.ts';
import type { Program } from '../program/program.ts';
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { InternalError, unreachable } from '../errors.ts';
import type { Expr } from '../expr/nodes.ts';
import { walk } from '../expr/visit.ts';
import { atomicFunction, isAtomicFunction, type AtomicFunction } from '../expr/atomic-functions.ts';
import { preprocess } from '../preprocess/pipeline.ts';
import type { DType } from '../dtypes.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import { ToCountMap } from './count-map.ts';
import type { GuardedPwQPolynomial } from './guarded.ts';
import { InstructionCounts, type InstructionCountOptions } from './instruction-counts.ts';
import { Op, type OpFields } from './keys.ts';
import { countedInstructions, expressionTyper, type WithinOption } from './kernel-view.ts';
import { soleAssignee } from '../kernel/accesses.ts';

/** The options getOpMap reads; any other key is an error. */
const GET_OP_MAP_OPTIONS = optionKeys<OpMapOptions>()([
  'countRedundantWork',
  'countWithinSubscripts',
  'subgroupSize',
  'within',
]);

/** Operation counts by `Op` (loopy's `get_op_map`). */
export type OpMap = ToCountMap<Op, OpFields>;

/** Options of `getOpMap`. */
export interface OpMapOptions extends InstructionCountOptions, WithinOption {
  /** Count the operations in array indices (`a[i + 1]`'s add); default true. */
  readonly countWithinSubscripts?: boolean;
}

/** The kind of key maps of operations have. */
export const OP_KEYS = { fields: Op.fields, make: (f: OpFields) => new Op(f) };

/**
 * Counts a kernel's arithmetic operations (loopy's `get_op_map`).
 * ```ts
 * const ops = getOpMap(knl); console.log(ops.toString());
 * ```
 */
export function getOpMap(program: LoopKernel | Program, options: OpMapOptions = {}): OpMap {
  const knl = compiledKernel(program);
  checkOptionKeys('getOpMap', options, GET_OP_MAP_OPTIONS);
  const prepared = preprocess(knl);
  return opMapOf(new InstructionCounts(prepared, options, 'getOpMap'), options);
}

/** The op map of the preprocessed kernel `counts` counts runs of. */
export function opMapOf(counts: InstructionCounts, options: OpMapOptions): OpMap {
  const prepared = counts.knl;
  counts.requireSubgroupSize();
  const typeOf = expressionTyper(prepared);
  const entries: [Op, GuardedPwQPolynomial][] = [];
  for (const insn of countedInstructions(prepared, options.within)) {
    for (const { dtype, name, times } of operationsOf(insn, typeOf, options.countWithinSubscripts ?? true)) {
      const op = new Op({ dtype, name, countGranularity: 'subgroup', kernelName: prepared.name });
      entries.push([op, counts.runs(insn, 'subgroup').scale(times)]);
    }
  }
  return new ToCountMap(OP_KEYS, entries, counts.zero);
}

/** One kind of operation an instruction performs, and how many of it per run. */
export interface Operations {
  readonly dtype: DType;
  readonly name: string;
  readonly times: number;
}

/** The operations one run of `insn` performs, by dtype and name. */
export function operationsOf(
  insn: Instruction,
  typeOf: (e: Expr) => DType,
  countWithinSubscripts: boolean,
): Operations[] {
  const tally = new Map<string, { dtype: DType; name: string; times: number }>();
  for (const e of [soleAssignee(insn), insn.expression!]) {
    walk(e, (x) => {
      if (x.kind === 'subscript') return countWithinSubscripts;
      const name = operationOf(x);
      if (name === undefined) return undefined;
      const dtype = typeOf(x);
      const key = `${dtype} ${name}`;
      const had = tally.get(key);
      tally.set(key, { dtype, name, times: (had?.times ?? 0) + 1 });
      return undefined;
    });
  }
  return [...tally.values()];
}

/** The operation a node performs itself (its operands' are theirs), if any. */
function operationOf(e: Expr): string | undefined {
  switch (e.kind) {
    case 'binary':
      switch (e.op) {
        case '+':
        case '-':
          return 'add';
        case '*':
          return isMinusOne(e.left) || isMinusOne(e.right) ? undefined : 'mul';
        case '/':
        case '//':
        case '%':
          return 'div';
        case '**':
          return 'pow';
        case '&':
        case '|':
        case '^':
          return 'bw';
        case '<<':
        case '>>':
          return 'shift';
        default:
          return unreachable(e, 'binary operator');
      }
    case 'bitnot':
      return 'bw';
    case 'call':
      // an atomic fetch counts as the update it makes, as an `{atomic}` update is counted (its `+`, its `min`)
      if (isAtomicFunction(e.fn)) return ATOMIC_OPERATIONS[atomicFunction(e.fn).op];
      return `func:${e.fn}`;
    case 'reduce':
      throw new InternalError('getOpMap: a reduction is left after preprocessing');
    default:
      return undefined;
  }
}

/** The operation each atomic fetch counts as: none for an exchange (a store), nor for compare-exchange (a comparison costs nothing). */
const ATOMIC_OPERATIONS: Readonly<Record<AtomicFunction['op'], string | undefined>> = {
  add: 'add',
  sub: 'add',
  min: 'func:min',
  max: 'func:max',
  exchange: undefined,
  'compare-exchange': undefined,
};

function isMinusOne(e: Expr): boolean {
  return (
    ((e.kind === 'int' || e.kind === 'float') && e.value === -1) ||
    (e.kind === 'neg' && (e.operand.kind === 'int' || e.operand.kind === 'float') && e.operand.value === 1)
  );
}
