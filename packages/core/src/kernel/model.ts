/**
 * The kernel model: an immutable `LoopKernel` and the records it is made of.
 *
 * Every transformation returns a new kernel through `kernel.with({...})`; nothing
 * here is ever mutated after construction: the constructor freezes every field deeply,
 * maps included (freeze.ts).
 */
import type { StructDType } from '../structs/struct-dtype.ts';
import type { DType } from '../dtypes.ts';
import type { Expr } from '../expr/nodes.ts';
import type { BasicSet } from '../sets/index.ts';
import { LoomError, type SourceSpan } from '../errors.ts';
import { checkName } from '../names.ts';
import { FrozenMap, frozenField } from './freeze.ts';
import type { UserFunction } from '../functions/user-functions.ts';

const NO_FUNCTIONS: ReadonlyMap<string, UserFunction> = new FrozenMap();
/** No splits applied yet. */
const NO_REWRITES: readonly ReadonlyMap<string, Expr>[] = Object.freeze([]);
const NO_PREAMBLES: readonly Preamble[] = Object.freeze([]);

/**
 * The kinds of kernel argument: global array, scalar value, constant array, and image (loopy's
 * `ImageArg`: a read-only array of 2 or 3 axes that targets with images read through their
 * texture hardware, and the others as a global array; kernel/images.ts).
 */
export type ArgKind = 'global' | 'value' | 'constant' | 'image';
/** Where a temporary lives: private (per work-item), local (per work-group) or global. */
export type AddressSpace = 'private' | 'local' | 'global';

/**
 * How one axis of an array is laid out in linear memory (loopy's data axis tags),
 * after `tagArrayAxes` has resolved what the user wrote:
 *  - `nested`: the axis takes part in the nesting of axes; level 0 moves fastest, and
 *    each level's stride is the product of the lengths of the levels below it
 *    (`c` and `f` become levels: `c,c,c` is N2,N1,N0 and `f,f,f` is N0,N1,N2);
 *  - `stride`: a stride the user fixed (`stride:EXPR`), in elements (in vectors for an
 *    array with a `vec` axis);
 *  - `sep`: each index of the axis is a separate array;
 *  - `vec`: the axis is the lanes of a vector type.
 */
export type DimTag =
  | { readonly kind: 'nested'; readonly level: number }
  | { readonly kind: 'stride'; readonly stride: Expr }
  | { readonly kind: 'sep' }
  | { readonly kind: 'vec' };

/** A kernel argument: an array in global/constant memory, or a value passed by copy. */
export interface KernelArg {
  /** The argument's name. */
  readonly name: string;
  /** `'global'` (an array), `'value'` (a scalar), `'constant'` (a read-only array in constant memory) or `'image'`. */
  readonly kind: ArgKind;
  /** `undefined`: decided by the data passed at run time (`<auto/runtime>`). */
  readonly dtype: DType | undefined;
  /** Arrays: one expression per axis, in the parameters. Values: `undefined`. */
  readonly shape: readonly Expr[] | undefined;
  /** Whether the kernel reads it. */
  readonly isInput: boolean;
  /** Whether the kernel writes it (`run` returns it). */
  readonly isOutput: boolean;
  /** Whether it is updated with atomic operations. */
  readonly forAtomic: boolean;
  /** One tag per axis of `shape`; `undefined`: row-major (`c` on every axis). */
  readonly dimTags?: readonly DimTag[];
  /** Names of the axes (setArrayAxisNames), used in the names of inames made for them (`a_dim_row`). */
  readonly dimNames?: readonly string[];
  /**
   * Where element 0 lies in the buffer passed, in elements: an expression in the value
   * arguments (loopy's `offset`); `undefined`: at its start. `offset: 'auto'` makes it a
   * value argument `NAME_offset` that `run` takes from the view passed (arg-layouts.ts).
   */
  readonly offset?: Expr;
  /**
   * An array of structs: its elements' fields. The array itself is their bytes (`dtype`
   * uint8, the struct's size as a last axis: frontend/struct-fields.ts), read and written one
   * field at a time (`Subscript.field`).
   */
  readonly struct?: StructDType;
}

/** A temporary of a kernel: a variable or array that lives only while it runs. */
export interface TemporaryVariable {
  /** The temporary's name. */
  readonly name: string;
  /** `undefined` until type inference decides it. */
  readonly dtype: DType | undefined;
  /** Empty for a scalar. Entries are constant integers once the kernel is made. */
  readonly shape: readonly Expr[];
  /** `'auto'` until placement decides (private unless written across local ids). */
  readonly addressSpace: AddressSpace | 'auto';
  /** One tag per axis of `shape`; `undefined`: row-major. */
  readonly dimTags?: readonly DimTag[];
  /** Names of the axes (setArrayAxisNames), used in the names of inames made for them. */
  readonly dimNames?: readonly string[];
  /** Its values before the kernel runs, row-major (loopy's `initializer`); only a read-only temporary has them. */
  readonly initializer?: readonly number[];
  /** No instruction writes it (loopy's `read_only`). */
  readonly readOnly?: boolean;
  /**
   * It is accessed atomically (loopy's `for_atomic`): declared as the target's atomic type, every
   * read of it an atomic load. Absent: plain.
   */
  readonly forAtomic?: boolean;
  /**
   * The accumulator of a tensor tile (`tensorize`): its last two axes are the tile's rows and
   * columns, held across the registers of a subgroup's lanes as one matrix fragment (CUDA's
   * `wmma::fragment`) per index of the axes before them, and read or written only whole, by
   * matrix instructions. Absent: an ordinary temporary.
   */
  readonly matrixAccumulator?: boolean;
  /**
   * For a tensor tile's accumulator: the factors of its products rounded to TF32 (a 10-bit
   * mantissa) by the matrix instructions, as `tensorize`'s `precision: 'tf32'` asked. Absent: the
   * factors as they are.
   */
  readonly matrixPrecision?: 'tf32';
  /**
   * A local array stored swizzled (`swizzleArray`): byte offset `o` of its row-major layout lies at
   * `o ^ (((o >> 7) % (swizzle / 16)) << 4)`, each 16-byte unit of a 128-byte line moved within its
   * `swizzle` bytes by the line's index, as Hopper's tensor memory accelerator and warpgroup
   * instructions lay tiles out (32, 64 or 128). Only where the elements lie changes, not which
   * element an index reads. Absent: as the layout says.
   */
  readonly swizzle?: 32 | 64 | 128;
}

/**
 * The C code of a `cInstruction` (loopy's `CInstruction`), printed as given inside the loops
 * by the targets that compile C (`TargetFacts.cInstructions`).
 */
export interface CCode {
  /** The C statements, their common indentation removed. */
  readonly code: string;
  /** Names the code uses, each declared `int const NAME = VALUE;` before it (loopy's `iname_exprs`). */
  readonly inameExprs: readonly { readonly name: string; readonly value: Expr }[];
  /** The variables the code reads (loopy's `read_variables`): what orders it after their writers. */
  readonly readVariables: readonly string[];
}

/**
 * An assignment `assignee = expression`, a multiple assignment `v, k = argmax(i, a[i], i)`,
 * C code given as is (`cInstruction`), a barrier, a fence, or a no-op placeholder.
 */
export interface Instruction {
  /**
   * An assignment, C code (its `cCode`), a barrier, a no-op that only orders others, a call
   * of another kernel of the program (its `call`; inlined before preprocessing, program/inline.ts),
   * a call of a user function kept for its side effect, whose result (if any) nothing keeps
   * (`user-call`: its `expression` is the call and it has no assignees; loopy's call with no
   * assignees, functions/call-statements.ts), or a device-wide memory fence (`fence`, the text's
   * `... gfence`: see below).
   *
   * A fence is no barrier: no work-item waits for another at it. Each work-item that runs it
   * (under its loops and predicates, as an assignment runs) has its accesses of global memory
   * before the fence seen by every work-group before its accesses after it (CUDA's
   * `__threadfence()`). With an atomic fetch after it, that is how a work-group hands data to
   * another within one launch: write, fence, then take a ticket; the work-group whose ticket
   * says it came last reads what the others wrote (after a fence of its own). Loopy has no
   * fence; a target without one (WGSL) refuses it (`Target.globalFences`).
   */
  readonly kind: 'assign' | 'c' | 'barrier' | 'nop' | 'call' | 'user-call' | 'fence';
  /** Unique in the kernel; what dependencies and match expressions name. */
  readonly id: string;
  /**
   * What it writes, each a `Var` or `Subscript`: one for an assignment, one per result of
   * the reduction on the right for a multiple assignment (realizing reductions turns those
   * into single ones), none for barriers and no-ops.
   */
  readonly assignees: readonly Expr[];
  /** The value assigned, or the call a `user-call` makes (absent for barriers, no-ops and C code). */
  readonly expression?: Expr;
  /** What a `'c'` instruction runs; its `assignees` are what the code writes (loopy's `assignees`). */
  readonly cCode?: CCode;
  /** What a `'call'` instruction sweeps; its `expression` is `callee(args...)`. */
  readonly call?: KernelCall;
  /** For barriers: which memory the barrier synchronizes. */
  readonly barrierScope?: 'global' | 'local';
  /**
   * For local barriers (`{mem_kind=global}`): which memory the barrier also makes
   * consistent within the work-group; default local. A global barrier ends the
   * device kernel, after which all memory is consistent whatever this says.
   */
  readonly memKind?: 'global' | 'local';
  /** The loops this instruction lives in (loopy's `within_inames`). */
  readonly withinInames: readonly string[];
  /** Ids of the instructions that must run before this one (loopy's `depends_on`). */
  readonly dependsOn: readonly string[];
  /**
   * Instructions this one needs no barrier with, even where a dependency or a conflict
   * would ask for one: `ID` or `ID@SCOPE` (wildcards allowed in ID; SCOPE is `local`,
   * `global` or `any`, and a missing scope means `any`). Read them with `parseNoSync`.
   */
  readonly noSyncWith: readonly string[];
  /** Among instructions ready at once, a higher priority is scheduled first (loopy's `priority`). */
  readonly priority: number;
  /** Conditions that must all hold for the instruction to execute. */
  readonly predicates: readonly Expr[];
  /** Tags match expressions can select it by (`tag:NAME`). */
  readonly tags: readonly string[];
  /** Instruction groups it belongs to (loopy's `groups`): a group is active while some but not all of its instructions have run. */
  readonly groups: readonly string[];
  /** Groups that must not be active when it is scheduled (loopy's `conflicts_with_groups`). */
  readonly conflictsWithGroups: readonly string[];
  /** Whether its update is atomic (`atomic` in the instruction's options). */
  readonly atomic: boolean;
  /**
   * An atomic store of a value that does not read its target (`atomic=init`, loopy's
   * `AtomicInit`), rather than an update; only with `atomic`. Absent: an update.
   */
  readonly atomicInit?: boolean;
  /**
   * A copy from global into local memory that completes asynchronously (`async` in the
   * instruction's options, or `asyncCopies`): the work-item issues it and goes on; what reads
   * the copy waits at a barrier, which the schedule places even where the same work-item reads
   * what it copied. CUDA issues it as `cp.async`; a target without such copies refuses it.
   */
  readonly asyncCopy?: boolean;
  /**
   * With `asyncCopy`: the copy is one element of a tile that the target moves whole, as one bulk
   * transfer a step issued by one work-item (`bulk` in the instruction's options, or
   * `bulkCopies`: CUDA's tensor memory accelerator, `cp.async.bulk.tensor`). Its meaning is the
   * asynchronous copy's; a target that issues asynchronous copies but no bulk ones refuses it.
   */
  readonly bulkCopy?: boolean;
  /**
   * A fill of a pipeline of more than two buffers (`doubleBuffer` with `stages`), `steps` steps of a
   * loop ahead of its reads: each iteration of `stepLoops` (the rounds, the step in a round, the
   * prologue) fills one step, so at a barrier the fills of the `steps - 1` latest steps need not
   * have landed yet, and the reads of the latest `stages - 1 - steps` steps need not be over. Code
   * generation leaves asynchronous copies (CUDA's `cp.async.wait_group`) and matrix products
   * (`wgmma.wait_group`) in flight that long where the code has that shape, and waits for all of
   * them otherwise.
   */
  readonly fillAhead?: FillAhead;
  /** Where the instruction was written, for error messages. */
  readonly span?: SourceSpan;
  /**
   * The calls this instruction was inlined from when a program was compiled, outermost first
   * (program/resolve.ts): code generation makes each call's code a device function of its own
   * where the target can call one (codegen/device-functions.ts). Absent for instructions
   * written in the kernel, and for those `inlineCallableKernel` inlined on request.
   */
  readonly inlinedFrom?: readonly InlinedCall[];
}

/** A pipeline's fill (`Instruction.fillAhead`): how far ahead of its reads, of how many buffers, by which loops' steps. */
export interface FillAhead {
  /** The steps between a buffer's fill and its reads (doubleBuffer's `ahead`, 1 or more). */
  readonly steps: number;
  /** The buffers of the pipeline (doubleBuffer's `stages`). */
  readonly stages: number;
  /** The loops each iteration of which fills one step: the rounds, the step in a round, the prologue. */
  readonly stepLoops: readonly string[];
}

/** One call an instruction was inlined from (`Instruction.inlinedFrom`). */
export interface InlinedCall {
  /** The callee kernel's name. */
  readonly callee: string;
  /** The call site: unique among the calls of one compiled kernel. */
  readonly site: string;
  /** The callee's inames, as renamed into the caller: the loops that belong to the call's code. */
  readonly inames: readonly string[];
}

/**
 * The sub-array references of a call of a callable kernel (loopy's `CallInstruction` with
 * `SubArrayRef`s): `[j]: y[i, j] = f([j]: x[i, j], n)`. A swept iname is bound by the
 * reference (it runs over its domain inside the callee), not a loop of the instruction.
 */
export interface KernelCall {
  /** The callee's name in the program. */
  readonly callee: string;
  /** Per assignee, the inames it sweeps (`[]` for a scalar result). */
  readonly assigneeSweeps: readonly (readonly string[])[];
  /** Per argument of the call, the inames it sweeps; `undefined`: a value passed as is. */
  readonly argSweeps: readonly (readonly string[] | undefined)[];
}

/** Every iname the sub-array references of a call instruction sweep (none for other kinds). */
export function sweptInames(insn: Instruction): Set<string> {
  const out = new Set<string>();
  if (!insn.call) return out;
  for (const s of insn.call.assigneeSweeps) for (const n of s) out.add(n);
  for (const s of insn.call.argSweeps) for (const n of s ?? []) out.add(n);
  return out;
}

/** A substitution rule (loopy's): a named, parameterised expression inlined where it is used. */
export interface SubstitutionRule {
  /** The name calls of it use. */
  readonly name: string;
  /** Its parameters, in order. */
  readonly params: readonly string[];
  /** The body, in terms of the parameters. */
  readonly expression: Expr;
}

/** Which barriers a `noSyncWith` entry waives: local ones, global ones, or both. */
export type NoSyncScope = 'local' | 'global' | 'any';
export const NO_SYNC_SCOPES: readonly NoSyncScope[] = ['local', 'global', 'any'];

/** `'w2@local'` → `{ pattern: 'w2', scope: 'local' }`; `'w2'` → scope `any`. */
export function parseNoSync(entry: string): { readonly pattern: string; readonly scope: NoSyncScope } {
  const at = entry.lastIndexOf('@');
  if (at < 0) return { pattern: entry, scope: 'any' };
  return { pattern: entry.slice(0, at), scope: entry.slice(at + 1) as NoSyncScope };
}

/** Iname implementation tags, as loopy spells them. */
export type InameTag =
  | { readonly kind: 'for' }
  | { readonly kind: 'local'; readonly axis: number }
  | { readonly kind: 'group'; readonly axis: number }
  | { readonly kind: 'unroll' }
  | { readonly kind: 'ilp'; readonly unrolled: boolean }
  | { readonly kind: 'vec' }
  /**
   * An axis of a tensor tile (`tensorize`): `m` and `n` the rows and columns of the product, `k` the
   * reduction. The tile is one matrix instruction that the lanes of a subgroup run together, not
   * loops: every lane holds a part of it in registers.
   */
  | { readonly kind: 'tensor'; readonly axis: TensorAxis };

/** An axis of a tensor tile: rows (`m`), columns (`n`), or the reduction between them (`k`). */
export type TensorAxis = 'm' | 'n' | 'k';

/** `slabs: [head, tail]` from `splitIname`: peel that many iterations off each end of the loop. */
export type Slabs = readonly [number, number];

/** A kernel's options (loopy's `Options`), set with `setOptions`. */
export interface KernelOptions {
  /** Print generated device code when the kernel runs (loopy's write_code). */
  readonly writeCode: boolean;
  /** Extra options for the device compiler (OpenCL build options). */
  readonly buildOptions: readonly string[];
  /** loopy's `allow_terminal_colors`, accepted for compatibility: Loom prints no colors, so it changes nothing. */
  readonly allowTerminalColors: boolean;
  /**
   * Let device compilers fuse `a * b + c` into an fma, which rounds once: faster (matrix
   * products), as CUDA and PyTorch do, but a result may then differ in its last bit from
   * the CPU device's. Off by default, so every operation rounds once on every device.
   */
  readonly fusedMultiplyAdd: boolean;
  /**
   * Refuse, with `VariableAccessNotOrdered`, a kernel where an instruction writes a variable
   * that another accesses at elements they may share with no dependency between them
   * (loopy's enforce_variable_access_ordered). Off by default, where loopy's is on: Loom's
   * own kernels (and its differential generator's) write one array from the two branches of
   * an if/else with no dependency between them, which this check would refuse.
   */
  readonly enforceVariableAccessOrdered: boolean;
  /**
   * Print a line from the device each time an assignment runs, before it runs (loopy's
   * trace_assignments; print first, so that the last line names a crashing one):
   * `knl.insn[gid0=0][lid0=1]: foo[0,1]`, the kernel, the instruction, the work-group and
   * work-item ids, and the element written. Where the target has a way to print (OpenCL, CUDA
   * and C's `printf`, the CPU device's `console.log`); elsewhere (WGSL) a LoomError.
   */
  readonly traceAssignments: boolean;
  /** As `traceAssignments`, but printed after the assignment, with the value written (`... = 1`; loopy's trace_assignment_values). */
  readonly traceAssignmentValues: boolean;
  /**
   * Ask the device compiler to fit this many work-groups on one compute unit at once (CUDA's
   * minimum blocks per multiprocessor, the second number of `__launch_bounds__`): it then keeps
   * each work-item's registers few enough, for more work-items in flight, at the risk of spills.
   * 0: no request. A target that cannot pass the request on (its `occupancyHints` fact) refuses it.
   */
  readonly minGroupsPerComputeUnit: number;
  /**
   * How the barriers of a kernel with bulk copies (`bulkCopies`) let a buffer be filled again:
   * `'barriers'`, each a barrier of the whole work-group (CUDA's `__syncthreads()`); `'arrivals'`,
   * each work-item arrives at a barrier object as it passes and goes on, and only the work-item
   * that requests the next copies waits there for the others, before its request (CUDA's
   * `mbarrier.arrive`: no work-item waits for another but the one that refills what they read).
   * Arrivals need every local array of the kernel to be a bulk tile that nothing else writes
   * (the barriers then order nothing else); `'auto'` (the default) keeps the barriers but in a
   * `warpSpecialized` kernel, whose producer needs arrivals (on an H100 arrivals alone ran no
   * faster than the barriers). Targets that issue no bulk requests (the CPU device copies at once)
   * have nothing to spell.
   */
  readonly bulkRelease: BulkRelease;
  /**
   * Warp specialisation, for a kernel whose bulk copies are released by arrivals (`bulkRelease`):
   * the requests are made by a work-item of their own (a producer, on one more row of the work-group
   * along its last axis of several work-items) instead of the first work-item, and the others (the
   * consumers) never wait for a request to be made: CUTLASS's warp-specialised Hopper kernels. A
   * target that issues no bulk requests (the CPU device copies at once) has nothing to specialise.
   */
  readonly warpSpecialized: boolean;
}

/** How a kernel with bulk copies lets its buffers be refilled (`KernelOptions.bulkRelease`). */
export type BulkRelease = 'auto' | 'arrivals' | 'barriers';

export const DEFAULT_OPTIONS: KernelOptions = Object.freeze({
  writeCode: false,
  buildOptions: Object.freeze([]) as readonly string[],
  allowTerminalColors: false,
  fusedMultiplyAdd: false,
  enforceVariableAccessOrdered: false,
  traceAssignments: false,
  traceAssignmentValues: false,
  minGroupsPerComputeUnit: 0,
  bulkRelease: 'auto',
  warpSpecialized: false,
});

/**
 * The integer type of a kernel's inames and index arithmetic (loopy's `index_dtype`). Loom's
 * generated code indexes in int32 on every target (runtime/limits.ts); int64 is recorded so that
 * a program mixing the two is refused as loopy refuses it, and code generation refuses it alone.
 */
export type IndexDType = 'int32' | 'int64';

export interface LoopKernelFields {
  /** The kernel's name. */
  readonly name: string;
  /** The domain list; a later domain may use an earlier one's inames as parameters. */
  readonly domains: readonly BasicSet[];
  /** The instructions, in the order written. */
  readonly instructions: readonly Instruction[];
  /** The arguments, in the order the kernel takes them. */
  readonly args: readonly KernelArg[];
  /** The temporaries, by name. */
  readonly temporaries: ReadonlyMap<string, TemporaryVariable>;
  /** The substitution rules, by name. */
  readonly substitutions: ReadonlyMap<string, SubstitutionRule>;
  /** Each tagged iname's tag (`g.0`, `l.0`, `unr`...); an untagged iname is absent. */
  readonly inameTags: ReadonlyMap<string, InameTag>;
  /** Parameter-only set: what the user promised about the parameters. */
  readonly assumptions: BasicSet;
  /** Advisory loop nestings, outermost first (from `prioritizeLoops`). */
  readonly loopPriorities: readonly (readonly string[])[];
  /** Loops generated as a bulk part without guards plus separate first/last iterations. */
  readonly loopSlabs: ReadonlyMap<string, Slabs>;
  /** The kernel's options (`setOptions`). */
  readonly options: KernelOptions;
  /** Warnings not to report (loopy's `silenced_warnings`). */
  readonly silencedWarnings: readonly string[];
  /** User functions the kernel may call, by name (`registerFunction`); absent: none. */
  readonly functions?: ReadonlyMap<string, UserFunction>;
  /**
   * What each split did to the inames it replaced, oldest first (loopy's
   * `applied_iname_rewrites`): `{ j: 256*j_outer + j_inner }`. A footprint written in the names
   * from before a split (`addPrefetch(knl, 'x[j,k]', ...)`) is read through them. Absent: none.
   */
  readonly appliedInameRewrites?: readonly ReadonlyMap<string, Expr>[];
  /** The integer type of its indices (`makeKernel`'s `indexDtype`); absent: int32. */
  readonly indexDtype?: IndexDType;
  /** C code printed before the kernels (`makeKernel`'s `preambles`, loopy's); absent: none. */
  readonly preambles?: readonly Preamble[];
}

/**
 * C code a kernel needs before it (loopy's preamble): `[key, code]`, printed in the order of the
 * keys, each code once (a callee's come along when it is inlined or made a function).
 */
export type Preamble = readonly [key: string, code: string];

/**
 * A loop kernel (loopy's `LoopKernel`): domains, instructions, arguments, temporaries and the tags and
 * options transformations set. Immutable: every transformation returns a new kernel.
 */
export class LoopKernel implements LoopKernelFields {
  readonly name!: string;
  readonly domains!: readonly BasicSet[];
  readonly instructions!: readonly Instruction[];
  readonly args!: readonly KernelArg[];
  readonly temporaries!: ReadonlyMap<string, TemporaryVariable>;
  readonly substitutions!: ReadonlyMap<string, SubstitutionRule>;
  readonly inameTags!: ReadonlyMap<string, InameTag>;
  readonly assumptions!: BasicSet;
  readonly loopPriorities!: readonly (readonly string[])[];
  readonly loopSlabs!: ReadonlyMap<string, Slabs>;
  readonly options!: KernelOptions;
  readonly silencedWarnings!: readonly string[];
  readonly functions!: ReadonlyMap<string, UserFunction>;
  readonly appliedInameRewrites!: readonly ReadonlyMap<string, Expr>[];
  readonly indexDtype!: IndexDType;
  readonly preambles!: readonly Preamble[];

  constructor(fields: LoopKernelFields) {
    // from `with`, only the replaced fields are new: the others passed these checks already
    const changed = changedFields;
    changedFields = undefined;
    checkFieldNames(fields, changed ?? fields);
    // each field assigned by name (a kernel is made at every transformation: no generic copy loop)
    this.name = fields.name;
    this.domains = frozenField(fields.domains);
    this.instructions = frozenField(fields.instructions);
    this.args = frozenField(fields.args);
    this.temporaries = frozenField(fields.temporaries);
    this.substitutions = frozenField(fields.substitutions);
    this.inameTags = frozenField(fields.inameTags);
    this.assumptions = fields.assumptions;
    this.loopPriorities = frozenField(fields.loopPriorities);
    this.loopSlabs = frozenField(fields.loopSlabs);
    this.options = frozenField(fields.options);
    this.silencedWarnings = frozenField(fields.silencedWarnings);
    this.functions = frozenField(fields.functions ?? NO_FUNCTIONS);
    this.appliedInameRewrites = frozenField(fields.appliedInameRewrites ?? NO_REWRITES);
    this.indexDtype = fields.indexDtype ?? 'int32';
    this.preambles = frozenField(fields.preambles ?? NO_PREAMBLES);
    Object.freeze(this);
  }

  /** A copy with some fields replaced: the one way transformations build kernels. */
  with(changes: Partial<LoopKernelFields>): LoopKernel {
    changedFields = changes;
    try {
      return new LoopKernel({ ...this.fields(), ...changes });
    } finally {
      changedFields = undefined;
    }
  }

  /** The kernel's fields as a plain object (to build a changed copy). */
  fields(): LoopKernelFields {
    const { name, domains, instructions, args, temporaries, substitutions, inameTags, assumptions } = this;
    const { loopPriorities, loopSlabs, options, silencedWarnings, functions, appliedInameRewrites, indexDtype } = this;
    const { preambles } = this;
    return {
      name,
      domains,
      instructions,
      args,
      temporaries,
      substitutions,
      inameTags,
      assumptions,
      loopPriorities,
      loopSlabs,
      options,
      silencedWarnings,
      functions,
      appliedInameRewrites,
      indexDtype,
      preambles,
    };
  }

  /** Every iname of every domain, in order of first appearance. */
  get inames(): string[] {
    const seen = new Set<string>();
    for (const d of this.domains) for (const n of d.dims) seen.add(n);
    return [...seen];
  }

  /** The argument called `name`, or undefined. */
  arg(name: string): KernelArg | undefined {
    return this.args.find((a) => a.name === name);
  }

  /** The instruction with id `id`; a `LoomError` when there is none. */
  instruction(id: string): Instruction {
    const insn = this.instructions.find((i) => i.id === id);
    if (!insn) {
      const ids = this.instructions.map((i) => i.id);
      throw new LoomError(
        `no instruction '${id}' (instructions: ${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ', …' : ''})`,
      );
    }
    return insn;
  }

  /** Value arguments and domain parameters: the integers the launch needs. */
  get valueArgs(): KernelArg[] {
    return this.args.filter((a) => a.kind === 'value');
  }

  toString(): string {
    return printKernelHook(this);
  }
}

/**
 * The backstop of the name policy (../names.ts): whatever built the fields, every name a
 * kernel holds is an identifier. The APIs check the names they receive first, with
 * messages that say which API got which name; this catches anything that bypasses them.
 */
function checkFieldNames(fields: LoopKernelFields, changed: Partial<LoopKernelFields>): void {
  if (changed.name !== undefined) checkName(fields.name, 'kernel name');
  if (changed.domains)
    for (const d of fields.domains) for (const n of d.dims) checkName(n, `kernel '${fields.name}': iname`);
  if (changed.args) for (const a of fields.args) checkName(a.name, `kernel '${fields.name}': argument`);
  if (changed.temporaries) {
    for (const [key, t] of fields.temporaries) {
      checkName(key, `kernel '${fields.name}': temporary`);
      if (t.name !== key) checkName(t.name, `kernel '${fields.name}': temporary`);
    }
  }
  if (changed.substitutions) {
    for (const [key, rule] of fields.substitutions) {
      checkName(key, `kernel '${fields.name}': substitution rule`);
      for (const p of rule.params) checkName(p, `kernel '${fields.name}': parameter of rule '${key}'`);
    }
  }
  if (changed.instructions)
    for (const insn of fields.instructions) checkName(insn.id, `kernel '${fields.name}': instruction id`, insn.span);
}

/** The fields `with` replaces, for the constructor it calls (set only for that call). */
let changedFields: Partial<LoopKernelFields> | undefined;

// The printer lives in print.ts; a hook avoids an import cycle between model and printer.
let printKernelHook: (k: LoopKernel) => string = (k) => `LoopKernel(${k.name})`;
export function registerKernelPrinter(printer: (k: LoopKernel) => string): void {
  printKernelHook = printer;
}

export function isArrayArg(arg: KernelArg): boolean {
  return arg.kind !== 'value';
}

export function tagToString(tag: InameTag | undefined): string {
  if (!tag) return 'None';
  switch (tag.kind) {
    case 'for':
      return 'for';
    case 'local':
      return `l.${tag.axis}`;
    case 'group':
      return `g.${tag.axis}`;
    case 'unroll':
      return 'unr';
    case 'ilp':
      return tag.unrolled ? 'ilp.unr' : 'ilp.seq';
    case 'vec':
      return 'vec';
    case 'tensor':
      return `tensor.${tag.axis}`;
  }
}

/** A plain loop (untagged or `for`): one iteration after another, which may hold a global barrier. */
export function isSequentialTag(tag: InameTag | undefined): boolean {
  return tag === undefined || tag.kind === 'for';
}

/** Parallel inames are not loops in the generated code: the hardware runs them. */
export function isParallelTag(tag: InameTag | undefined): boolean {
  return tag?.kind === 'local' || tag?.kind === 'group';
}
