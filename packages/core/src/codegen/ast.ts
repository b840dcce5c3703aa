/**
 * The target-independent program that code generation produces: kernels with typed
 * parameters, loops, guards, assignments. A target (OpenCL C, WGSL, JavaScript)
 * only decides how to spell it. Array accesses are already flattened to one
 * index (row-major strides applied), except reads of an image parameter (`KernelParam.image`),
 * which keep one index per axis; types of names are in `KernelFunction.types`.
 */
import type { DType } from '../dtypes.ts';
import type { StructDType } from '../structs/struct-dtype.ts';
import type { FillAhead } from '../kernel/model.ts';
import { bool, float, int, type Call, type Expr } from '../expr/nodes.ts';
import { isFloat } from '../dtypes.ts';
import { InternalError } from '../errors.ts';
import type { AddressSpace } from '../kernel/model.ts';
import type { BoundsChecks } from './access-guards.ts';
import { mapStmts, statementsOfKind } from './stmt-visit.ts';
import { freeVariables, someExpr } from '../expr/index.ts';
import type { UserFunction } from '../functions/user-functions.ts';

/** A statement of the program AST: what targets spell in their language. */
export type Stmt =
  | { readonly kind: 'block'; readonly body: readonly Stmt[] }
  /** `for (int iname = lower; iname <= upper; ++iname)`: both bounds inclusive. */
  | { readonly kind: 'for'; readonly iname: string; readonly lower: Expr; readonly upper: Expr; readonly body: Stmt }
  | { readonly kind: 'if'; readonly condition: Expr; readonly then: Stmt }
  /**
   * `target = value`; `target` is a `var` or a one-index `subscript`. With `vector`, every lane
   * of a `vec` loop at once (vectorize.ts): `vectorIndex` says which accesses are whole vectors.
   * With `async`, a copy from global into local memory that the work-item does not wait for
   * until its next barrier (an `asyncCopy` instruction: only targets with `asyncCopies` get one);
   * `ahead`: the instruction's `fillAhead` (a pipeline's fill, which a barrier may leave in flight).
   * With `bulk` (and `async`): an element of a tile the target moves whole, as one bulk transfer
   * (a `bulkCopy` instruction: only targets with `bulkCopies` get one).
   */
  | {
      readonly kind: 'assign';
      readonly target: Expr;
      readonly value: Expr;
      readonly dtype: DType;
      readonly atomic: boolean;
      readonly insnId: string;
      readonly vector?: VectorLoop;
      readonly async?: true;
      readonly bulk?: true;
      readonly ahead?: FillAhead;
    }
  /**
   * `length` elements; with `vectorWidth`, an array with a `vec` axis of that many lanes (the lane
   * index moves fastest). With `initializer`: a constant table of `length` values (a scalar: one),
   * row-major, that is never written.
   */
  | {
      /** The statement kind, which tells the `Stmt` union apart. */
      readonly kind: 'declare';
      /** The variable's name. */
      readonly name: string;
      /** Its element dtype. */
      readonly dtype: DType;
      /** Where it lives: private, local or global memory. */
      readonly addressSpace: AddressSpace;
      /**
       * An array's number of elements; absent: a scalar. An expression in the kernel's value
       * parameters where the size is known only at launch (targets with `runtimeSizedArrays`).
       */
      readonly length?: number | Expr;
      /** Lanes per vector, for an array with a `vec` axis. */
      readonly vectorWidth?: number;
      /** The values of a constant table, row-major. */
      readonly initializer?: readonly number[];
      /** Accessed atomically (loopy's `for_atomic`): the target's atomic type, reads atomic loads. */
      readonly forAtomic?: boolean;
      /**
       * A tensor tile's accumulator: `length / (m * n)` fragments of that shape (`MatrixOp`), each
       * spread over the registers of `lanes` work-items.
       */
      readonly matrix?: Fragment['shape'] & { readonly lanes: number };
      /** Read whole tiles at a time by matrix instructions: aligned as they need, held in its own dtype. */
      readonly matrixOperand?: boolean;
      /**
       * Stored swizzled over this many bytes (`TemporaryVariable.swizzle`; its accesses' indices are
       * swizzled already, swizzle.ts): a target whose hardware reads it whole starts it at a multiple of
       * 8 spans (1024 bytes for 128), where the hardware's own swizzle starts.
       */
      readonly swizzle?: number;
    }
  /**
   * C code printed as given (a `cInstruction`): each binding declared `int const name = value;`
   * before it, where the value is not the name itself. Only targets that compile C get one.
   */
  | {
      readonly kind: 'code';
      readonly code: string;
      readonly bindings: readonly { readonly name: string; readonly value: Expr }[];
      readonly insnId: string;
    }
  /**
   * `f(args);`: a user function called for its side effect (a `user-call` instruction), whatever
   * it returns dropped. `call` is a resolved call (its `dtype` the signature's result).
   */
  | { readonly kind: 'call'; readonly call: Call; readonly insnId: string }
  /**
   * A line the device prints (loopy's trace_assignments): the `pieces` of text with the `values`
   * between them (`pieces.length === values.length + 1`), each printed as its dtype prints
   * (integers in decimal, floats as C's `%g`). Only targets that state `prints` get one.
   */
  | {
      readonly kind: 'trace';
      readonly pieces: readonly string[];
      readonly values: readonly { readonly value: Expr; readonly dtype: DType }[];
      readonly insnId: string;
    }
  | { readonly kind: 'barrier'; readonly scope: 'local' | 'global'; readonly comment?: string }
  /**
   * A device-wide memory fence (a `fence` instruction, the text's `... gfence`): the work-item's
   * global memory accesses before it are seen by every work-group before those after it (CUDA's
   * `__threadfence()`). No work-item waits at it. Only targets with `globalFences` get one.
   */
  | { readonly kind: 'fence'; readonly insnId: string }
  | { readonly kind: 'comment'; readonly text: string }
  /**
   * A call of the device function `function` (`ProgramAst.deviceFunctions`), one argument per
   * parameter: an array's or a value's name, or a work-item id (`lid(0)`) the target passes in.
   */
  | { readonly kind: 'device-call'; readonly function: string; readonly args: readonly Expr[] }
  /**
   * One matrix instruction of a tensor tile (`tensorize`), which every lane of a subgroup runs
   * together: only targets with `matrixInstructions` get one.
   */
  | { readonly kind: 'matrix'; readonly op: MatrixOp; readonly insnId: string };

/**
 * A tensor tile's matrix instructions: the accumulator set to a value (`fill`), a product of
 * two tiles added to it (`multiply`), or its tile stored (`store`).
 */
export type MatrixOp =
  | { readonly kind: 'fill'; readonly accumulator: Fragment; readonly value: Expr }
  | {
      readonly kind: 'multiply';
      readonly accumulator: Fragment;
      readonly a: MatrixOperand;
      readonly b: MatrixOperand;
      /** `'tf32'`: the factors rounded to TF32 first (`MatrixShape.precision`). */
      readonly precision?: 'tf32';
      /**
       * With `precision`: the factors' 13 low bits dropped, not rounded (`MatrixShape.truncatesTf32`:
       * Hopper's warpgroup instructions read floats from local memory as they are stored).
       */
      readonly truncates?: true;
    }
  | { readonly kind: 'store'; readonly accumulator: Fragment; readonly c: MatrixOperand };

/** An `m`×`n` accumulator tile: element `index` of a declared array of fragments. */
export interface Fragment {
  /** The accumulator temporary (a `declare` with `matrix`). */
  readonly name: string;
  /** Which of its fragments. */
  readonly index: Expr;
  /** The tile's shape (`k`: the product it accumulates). */
  readonly shape: { readonly m: number; readonly n: number; readonly k: number };
  /** Its elements' dtype. */
  readonly dtype: DType;
  /** The work-items that hold it together in their registers (a warp's 32, a warpgroup's 128; 1 on the CPU). */
  readonly lanes: number;
}

/**
 * A tile in memory: the elements from `offset` (a flat index into `array`, the tile's first
 * element) on, rows `leading` elements apart (`layout: 'row'`), or columns (`'col'`).
 */
export interface MatrixOperand {
  /** A global parameter or a local temporary. */
  readonly array: string;
  /** The flat index of its first element. */
  readonly offset: Expr;
  /** The distance between its rows (row-major) or columns (column-major), in elements. */
  readonly leading: number;
  /** Which of its axes lies contiguous in memory. */
  readonly layout: 'row' | 'col';
  /** Its elements' dtype. */
  readonly dtype: DType;
  /**
   * A tile in 8 x 8 core matrices (`MatrixShape.factors`, matrix-cores.ts) rather than in lines:
   * element (r, c) lies at `offset + rows * (r // 8) + columns * (c // 8)` plus, within its core
   * matrix, `8 * (r % 8) + c % 8` (layout `'row'`) or `r % 8 + 8 * (c % 8)` (`'col'`); `leading` is 8.
   */
  readonly cores?: { readonly rows: number; readonly columns: number };
  /**
   * A tile of a swizzled array (`TemporaryVariable.swizzle`, matrix-cores.ts) rather than in core
   * matrices: element (r, c) (layout `'row'`; `'col'` exchanges r and c) lies at the swizzled index
   * (swizzle.ts) of `offset + leading * r + c % leading + blocks * (c // leading)`, where `leading` is
   * the line's elements (`span` bytes) and `blocks` the elements between blocks of lines (0: one block).
   */
  readonly swizzle?: { readonly span: number; readonly blocks: number };
}

/** A loop over a `vec` iname spelled as vector code: its iname and its number of lanes. */
export interface VectorLoop {
  /** The `vec` iname. */
  readonly iname: string;
  /** Its number of lanes (its extent). */
  readonly lanes: number;
}

/** A parameter of a device kernel function: an array or a value, with its dtype and address space. */
export interface KernelParam {
  /** The parameter's name in the device code. */
  readonly name: string;
  /** Its element dtype (a complex array's part dtype). */
  readonly dtype: DType;
  /** `'global'` or `'constant'` (an array), or `'value'` (a scalar). */
  readonly kind: 'global' | 'value' | 'constant';
  /** Arrays: written by the kernel (no `const`). */
  readonly written: boolean;
  /** A value: the iname of an enclosing host loop, whose value the host passes at each launch. */
  readonly hostLoop?: boolean;
  /** A global temporary: `run` allocates it with this shape (in the parameters). */
  readonly temporaryShape?: readonly Expr[];
  /** A global temporary's values before the kernel runs (read-only), row-major: `run` writes them. */
  readonly temporaryInitializer?: readonly number[];
  /** An array with a `vec` axis: this many consecutive elements form one vector. */
  readonly vectorWidth?: number;
  /**
   * An image argument the target reads as an image (`Target.images`): read-only, of this shape
   * (2 or 3 axes, in the value arguments), and read as `a[i, j]`, one index per axis, the last
   * one the texture's `x`. The host still passes a buffer of its elements, row-major: the device
   * makes the image from it at launch (`imageExtents`).
   */
  readonly image?: { readonly shape: readonly Expr[] };
  /** Accessed atomically (loopy's `for_atomic`): the target's atomic type, reads atomic loads. */
  readonly forAtomic?: boolean;
  /**
   * An array of structs (frontend/struct-fields.ts): `dtype` is uint8 and every access a
   * one-index subscript whose index is the element's first byte (a multiple of the struct's
   * size) and whose `field` gives the value's dtype, path and byte offset in the element.
   * C-like targets declare the struct and index `a[index / size].path`; others read the bytes.
   */
  readonly struct?: StructDType;
}

/** One device kernel in the program AST: its parameters, grid sizes and body. */
export interface KernelFunction {
  /** The device kernel's name (`name_0`, `name_1`... after global barriers). */
  readonly name: string;
  /** Its parameters, in order. */
  readonly params: readonly KernelParam[];
  /** What each work-item runs. */
  readonly body: Stmt;
  /**
   * Work-group size per axis (all 1 for sequential kernels): integer literals, or expressions
   * in the value arguments evaluated at launch (local-size.ts).
   */
  readonly localSize: readonly Expr[];
  /** Number of work-groups per axis, as expressions in the parameters. */
  readonly groupCount: readonly Expr[];
  /** Every name's dtype: arguments, temporaries, inames. */
  readonly types: ReadonlyMap<string, DType>;
  /**
   * Local arrays of a size known only at launch that the target takes as kernel arguments
   * after `params` (`localArraysAsArguments`: OpenCL's `__local float *a_fetch`, its bytes set
   * by clSetKernelArg), in order; they have no declaration in `body`.
   */
  readonly localArguments?: readonly LocalArgument[];
  /**
   * Work-groups the compiler is asked to fit on one compute unit (the kernel option
   * `minGroupsPerComputeUnit`; only for targets with `occupancyHints`, and a constant work-group
   * size); absent: no request.
   */
  readonly minGroupsPerComputeUnit?: number;
  /** The kernel option `bulkRelease` where it is not `'auto'`: how a target issuing bulk copies spells its barriers. */
  readonly bulkRelease?: 'arrivals' | 'barriers';
  /** The kernel option `warpSpecialized` where set: a target issuing bulk copies has a producer make them. */
  readonly warpSpecialized?: true;
}

/**
 * A callee kernel's code as a function the device kernels call (codegen/device-functions.ts):
 * its parameters are the arrays and values the code reads or writes, and the work-item ids where
 * the target passes them in. It is spelled as a kernel is, with its own declaration.
 */
export interface DeviceFunction {
  /** The function's name: the callee kernel's, made unique in the program. */
  readonly name: string;
  /**
   * Arrays (by pointer, or the target's module-scope binding: `DeviceFunctionSupport`), values,
   * and private arrays of the caller's (by pointer, where the target's functions take them).
   */
  readonly params: readonly FunctionParam[];
  /** Its code; the callee's private temporaries are declared in it. */
  readonly body: Stmt;
  /** Every name's dtype, as in the kernel it was taken from. */
  readonly types: ReadonlyMap<string, DType>;
}

/** A device function's parameter: a kernel's (an array or a value), or a private array of its caller's. */
export type FunctionParam = KernelParam | PrivateArrayParam;

/** A private array of the calling work-item's, passed to a device function by pointer (`DeviceFunctionSupport.privateArrays`). */
export interface PrivateArrayParam {
  /** Its name, the caller's. */
  readonly name: string;
  /** Its element dtype. */
  readonly dtype: DType;
  /** The parameter kind, which tells it from a kernel's parameters. */
  readonly kind: 'private';
  /** Written by the function (no `const`). */
  readonly written: boolean;
}

/** A local array passed as a kernel argument, sized at launch (`KernelFunction.localArguments`). */
export interface LocalArgument {
  /** Its name in the device code. */
  readonly name: string;
  /** Its element dtype. */
  readonly dtype: DType;
  /** Its number of elements, in the value arguments. */
  readonly length: Expr;
}

/**
 * What the host does: launch `kernels[kernel]`, or run a loop (both bounds inclusive, in
 * the value arguments and the enclosing host loops' inames) around launches. A device
 * kernel inside a host loop takes each enclosing loop's value as a parameter of its name.
 */
export type HostStep =
  | { readonly kind: 'launch'; readonly kernel: number }
  | {
      readonly kind: 'loop';
      readonly iname: string;
      readonly lower: Expr;
      readonly upper: Expr;
      readonly body: readonly HostStep[];
    };

/** The program AST `buildProgram` makes from a kernel: its device kernels and the host steps that launch them, before a target spells it. */
export interface ProgramAst {
  /** The device kernels, in the order the host steps index them. */
  readonly kernels: readonly KernelFunction[];
  /** The launches and host loops, in order; absent: each kernel once, in order. */
  readonly host?: readonly HostStep[];
  /**
   * Compiled with bounds checking and some access needed a guard: the flag buffer
   * (a parameter of the kernels that have such accesses) and what each slot reports.
   */
  readonly boundsChecks?: BoundsChecks;
  /**
   * The kernel allows `a * b + c` to be fused into one fma (`setOptions(knl, {
   * fusedMultiplyAdd: true })`): one rounding instead of two, faster, and possibly one
   * ulp away from the CPU device. Off by default: every operation rounds once.
   */
  readonly fusedMultiplyAdd?: boolean;
  /**
   * The user functions the kernels call (functions/user-functions.ts), by name: a call of one
   * carries its result dtype (`Call.dtype`) and its arguments in the signature's dtypes.
   */
  readonly functions?: ReadonlyMap<string, UserFunction>;
  /** The callee kernels' functions the kernels call (`call` statements), callees before their callers. */
  readonly deviceFunctions?: readonly DeviceFunction[];
  /** C code printed before the kernels (`makeKernel`'s `preambles`), in the order of their keys, each once. */
  readonly preambles?: readonly string[];
}

export const block = (body: readonly Stmt[]): Stmt => (body.length === 1 ? body[0] : { kind: 'block', body });

/**
 * A declaration's number of elements where the target declares only constant sizes (undefined:
 * a scalar). A size known only at launch never reaches such a target: code generation refuses
 * it first (the `runtimeSizedArrays` fact), so one here is Loom's own mistake.
 */
export function constantLength(s: Extract<Stmt, { kind: 'declare' }>, language: string): number | undefined {
  if (s.length === undefined || typeof s.length === 'number') return s.length;
  throw new InternalError(
    `temporary '${s.name}' has a size known only at launch, which ${language} cannot declare (runtimeSizedArrays)`,
  );
}

/** One value of a constant table (`declare`'s initializer) as a literal a target prints in `dtype`. */
export function initializerLiteral(value: number, dtype: DType): Expr {
  if (dtype === 'bool') return bool(value !== 0);
  if (isFloat(dtype)) return float(value, dtype === 'float64' ? 'float64' : 'float32');
  return int(value);
}

/**
 * Adjacent statements under the same condition share one `if` (loopy groups them so):
 * `if (c) x = 1; if (c) y = 2;` → `if (c) { x = 1; y = 2; }`. Bodies inside are merged
 * first (bottom-up), so a merged `if` is not looked into again.
 */
export function mergeGuards(body: readonly Stmt[], same: (a: Expr, b: Expr) => boolean): Stmt[] {
  const merge = (list: readonly Stmt[]): Stmt[] => {
    const out: Stmt[] = [];
    for (const s of list) {
      const last = out[out.length - 1];
      if (s.kind === 'if' && last?.kind === 'if' && same(last.condition, s.condition)) {
        const previous = last.then.kind === 'block' ? last.then.body : [last.then];
        out[out.length - 1] = {
          kind: 'if',
          condition: last.condition,
          then: { kind: 'block', body: [...previous, s.then] },
        };
      } else out.push(s);
    }
    return out;
  };
  const inner = (s: Stmt) =>
    mapStmts(s, { stmt: (x) => (x.kind === 'block' ? { ...x, body: merge(x.body) } : hoistGuard(x)) });
  return merge(body.map(inner));
}

/**
 * A loop whose whole body is one guard that the loop does not change (`for (i) if (gid(0) > 0)
 * acc += a[i]`) runs under it instead: `if (gid(0) > 0) for (i) acc += a[i]`, as loopy puts
 * the conditions of a reduction's instruction around its loop. Only a condition that reads no
 * memory and none of the loop's names (its index, what it assigns) is moved.
 */
function hoistGuard(s: Stmt): Stmt {
  if (s.kind !== 'for' || s.body.kind !== 'if') return s;
  const guard = s.body;
  const changing = new Set([
    s.iname,
    ...statementsOfKind(guard.then, 'assign').flatMap((a) => [...freeVariables(a.target)]),
    ...statementsOfKind(guard.then, 'for').map((f) => f.iname),
  ]);
  const invariant =
    !someExpr(guard.condition, (x) => x.kind === 'subscript') &&
    ![...freeVariables(guard.condition)].some((n) => changing.has(n));
  return invariant ? { kind: 'if', condition: guard.condition, then: { ...s, body: guard.then } } : s;
}
