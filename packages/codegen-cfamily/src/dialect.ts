/**
 * What a C-family language says differently: the hooks of the C printer.
 *
 * The printer (expressions.ts, statements.ts, program.ts) spells the program AST as C:
 * operators, precedence, wrapping integer arithmetic, Loom's helper functions, loops and
 * guards. Everything a language spells its own way is asked of its dialect: type names and
 * literals, the names of math functions, hardware ids and barriers, how a kernel and its
 * parameters are declared, half precision, vector types, atomics, the lines before the
 * helpers (pragmas, extensions, includes), and the words it reserves. OpenCL C is
 * `openclDialect` in @loom/codegen-opencl; CUDA C is `cudaDialect` in @loom/codegen-cuda; C99 is
 * `cDialect` in @loom/codegen-c.
 * (loopy's `CFamilyASTBuilder` subclasses and Halide's `CodeGen_GPU_C` are the same idea.)
 */
import type { AtomicFunction, DType, FunctionDialect, KernelFunction, KernelParam } from '@loom/core';
import type { AtomicUpdate } from './atomics.ts';

/** What an atomic fetch does to its element (core's `AtomicFunction.op`). */
export type AtomicFetchOp = AtomicFunction['op'];
import type { CExpressionPrinter } from './expressions.ts';
import type { SubgroupSpelling } from './subgroups.ts';
import type { MatrixSpelling } from './matrix.ts';
import type { BulkCopySpelling } from './bulk-copies.ts';
import type { AsyncCopySpelling } from './async-copies.ts';

/** Where an array lives, as the printer tells a dialect (a pointer cast or a declaration needs it). */
export type CAddressSpace = 'global' | 'constant' | 'local' | 'private';

/** A local array sized at launch as `CDialect.localArrayPrologue` gets it. */
export interface LocalArraySpelling {
  readonly name: string;
  /** Its element type, as the language spells it. */
  readonly type: string;
  /** Its bytes, as the language spells an `int` expression of the value arguments. */
  readonly bytes: string;
}

/** The hooks of the C printer for one C-family language. */
export interface CDialect {
  /** The language's name in messages: `'OpenCL C'`, `'CUDA C'`. */
  readonly language: string;

  // --- names ---
  /** Whether `name` cannot be used as an identifier as it is (keywords, built-ins, macros): it is renamed. */
  isReserved(name: string): boolean;
  /**
   * The keys of `defineFunction` whose code this language reads, most specific first (OpenCL's
   * `['opencl']`): the target states the same list as its `functionDialects`.
   */
  readonly functionDialects: readonly FunctionDialect[];

  // --- types and literals ---
  /** The C type of dtype `t` (`uint`, `unsigned int`). */
  type(t: DType): string;
  /** A literal of dtype `t`, exact (`2.0f`, `2l`, `2ll`): the value is already in `t`'s range. */
  literal(value: number, t: DType): string;

  // --- functions ---
  /** The name of the math function `fn` (Loom's name) on floats of dtype `t`, or undefined where it has none. */
  mathFunction(fn: string, t: DType): string | undefined;
  /**
   * The built-in computing `mul_hi` or `rotate` (core's integer-bits functions) on dtype `t`
   * (OpenCL's overloads, CUDA's `__umulhi`); undefined, or left out: the printer's portable helper.
   */
  integerBuiltin?(fn: 'mul_hi' | 'rotate', t: DType): string | undefined;
  /** The name of `abs` on integers of dtype `t`; undefined where |x| is x itself and the language has no overload for it. */
  integerAbs(t: DType): string | undefined;
  /**
   * The integer `min` or `max` of dtype `t` where the language has no overloaded built-in for it
   * (C99): a helper's name and definition. Undefined, or left out: the built-in `min`/`max`
   * (OpenCL's, CUDA's).
   */
  integerMinMax?(fn: 'min' | 'max', t: DType): { readonly name: string; readonly definition: string } | undefined;
  /** `a` or `b` is NaN (OpenCL's `isunordered(a, b)`); both are printed operands. */
  unordered(a: string, b: string): string;
  /**
   * A float product `l * r`, spelled so that the compiler cannot fuse it with a sum into an
   * fma when the program does not allow that (`fused` false); undefined: the plain `l * r`
   * (a language that turns contraction off for the whole program, in `prelude`).
   */
  product?(l: string, r: string, t: DType, fused: boolean): string | undefined;
  /**
   * The compiler folds a float sum with a literal zero in ways IEEE does not allow (GCC, at every
   * level of optimization: `0.0 - (double) i` becomes `-(double) i`, -0 for i = 0 where IEEE gives
   * +0, and `0.0 + x` becomes `x`, since it takes a converted integer, `fabs` or their negation for
   * never -0): the operand beside such a zero goes through an identity helper (`loom_opaque_*`),
   * which the front end cannot see through and the optimizer, which folds correctly, removes.
   */
  readonly foldsZeroSums?: boolean;
  /** A float of dtype `from` converted to integer dtype `to`: truncated, saturated, NaN → 0 (Loom's conversion): the helper's name and definition. */
  floatToInteger(from: DType, to: DType): { readonly name: string; readonly definition: string };
  /** What precedes a helper function's definition: `inline`, `inline __device__`. */
  readonly helperQualifier: string;
  /** What the language does with a shift count outside [0, width), for the shift helpers' comments. */
  readonly oversizedShift: (bits: number) => string;

  // --- hardware ---
  /** A hardware id: the work-item's (`'lid'`) or work-group's (`'gid'`) index on `axis`. */
  hardwareId(fn: 'lid' | 'gid', axis: number): string;
  /** How subgroup functions are spelled (subgroups.ts); absent where the language has none (core refuses them first). */
  readonly subgroups?: SubgroupSpelling;
  /**
   * The statement moving 16 bytes from `from + fromIndex` into `to + toIndex` (elements, both 16-byte
   * aligned) at once (wide-copies.ts); absent: the elements are copied one at a time.
   */
  wideCopy?(to: string, toIndex: string, from: string, fromIndex: string): string;
  /**
   * How asynchronous copies into local memory are issued and waited for (async-copies.ts); absent:
   * they are plain copies (core lets them through only where work-items run one after another).
   */
  readonly asyncCopy?: AsyncCopySpelling;
  /**
   * How a tile of asynchronous copies is moved as one bulk request and waited for (bulk-copies.ts);
   * absent: a kernel with bulk copies is refused (core lets them through only where work-items run
   * one after another, whose dialects print them as plain copies).
   */
  readonly bulkCopy?: BulkCopySpelling;
  /** How matrix instructions (tensor tiles) are spelled (matrix.ts); absent where the language has none (core refuses them first). */
  readonly matrix?: MatrixSpelling;
  /** A barrier of the work-group, for local or global memory, with its comment (already printed) or none. */
  barrier(scope: 'local' | 'global', comment: string | undefined): string;

  // --- declarations ---
  /** A kernel's first line, from its printed parameters. */
  kernelDeclaration(k: KernelFunction, params: readonly string[]): string;
  /**
   * A device function's first line (a callee kernel's code, `ProgramAst.deviceFunctions`), from
   * its printed parameters: `void f(...)`, CUDA's `__device__ void f(...)`.
   */
  functionDeclaration(name: string, params: readonly string[]): string;
  /**
   * An array parameter's declaration: its element or vector type `type`, const unless written,
   * `restrict` where it may be declared so (`__restrict__`).
   */
  arrayParameter(p: KernelParam, type: string, restrict: boolean): string;
  /**
   * A local array sized at launch as a kernel parameter (`__local float *__restrict__ a_fetch`),
   * for a language whose target states `localArraysAsArguments`; absent elsewhere.
   */
  localArrayParameter?(name: string, type: string): string;
  /**
   * The first lines of a kernel whose local arrays sized at launch are carved out of memory the
   * launch provides (CUDA's `extern __shared__` dynamic shared memory), for a language without
   * `localArrayParameter`: each array's name, element type and bytes (an expression, printed).
   */
  localArrayPrologue?(arrays: readonly LocalArraySpelling[], alignment: number): string[];
  /**
   * How a language with images declares and reads them (OpenCL's `image2d_t` and `read_imagef`);
   * absent where the target reads image arguments as arrays (its `images` fact is not `'native'`).
   */
  readonly images?: ImageSpelling;
  /** The qualifier of an address space in a pointer cast, with its trailing space (`__global `), or ''. */
  addressSpace(space: CAddressSpace): string;
  /** What precedes the declaration of a local (work-group) array, with its trailing space: `__local `, `__shared__ `. */
  readonly localQualifier: string;
  /**
   * The bytes of constant-size local arrays a kernel may declare as such (CUDA: 48 KiB of static
   * `__shared__` memory). A kernel whose local arrays take more has them carved out of the launch's
   * memory with those sized at launch (`localArrayPrologue`, `CProgram.carvedLocalBytes`), where a
   * device gives a block more once asked (CUDA's dynamic shared memory, opted in). Undefined: no limit.
   */
  readonly staticLocalBytes?: number;

  // --- 16-bit floats ---
  /** How float16 is stored but computed in float (OpenCL without cl_khr_fp16; CUDA's `__half`). */
  readonly halfStorage: HalfStorageSpelling;
  /**
   * How bfloat16 is stored but computed in float: always, as no C-family language computes in
   * bfloat16 (its bits are a float's upper half: OpenCL and C shift them, CUDA has `__nv_bfloat16`).
   */
  readonly bfloat16Storage: HalfStorageSpelling;

  // --- vectors ---
  /** How arrays with a `vec` axis and vector statements are spelled. */
  readonly vectors: VectorSpelling;

  // --- atomics ---
  /**
   * The statement of an atomic update (`target op= operand`), at `address` (`&out[k]`) in memory
   * `space`, `operand` printed in `dtype`.
   */
  atomic(
    update: AtomicUpdate,
    dtype: DType,
    address: string,
    operand: string,
    printer: CExpressionPrinter,
    insnId: string,
    space: CAddressSpace,
  ): string;
  /**
   * The statement of an atomic update of any other form (`out[k] = 2*out[k] + 1`): a
   * compare-and-swap loop that declares `old` (of `dtype`), loads the element into it, computes
   * `next` (printed from `old`) and stores it where the element still holds `old`, else tries
   * again: a block, its lines joined by newlines (the caller indents them). Absent: such updates
   * are refused, naming the forms the target updates.
   */
  atomicCompareSwap?(
    dtype: DType,
    address: string,
    old: string,
    next: string,
    printer: CExpressionPrinter,
    insnId: string,
    space: CAddressSpace,
  ): string;
  /**
   * The statement storing `value` (printed in `dtype`) atomically at `address` in memory `space`:
   * an atomic store (loopy's `atomic=init`, or `{atomic}` on a value that does not read its target).
   */
  atomicStore(
    dtype: DType,
    address: string,
    value: string,
    printer: CExpressionPrinter,
    insnId: string,
    space: CAddressSpace,
  ): string;
  /**
   * An atomic load of the `dtype` at `address` in memory `space`, as an expression; absent where a
   * read of a variable declared with `atomicQualifier` is one already (OpenCL 1.2's volatile).
   */
  atomicLoad?(dtype: DType, address: string, printer: CExpressionPrinter, space: CAddressSpace): string;
  /** What precedes the type of a variable accessed atomically (`forAtomic`), with its trailing space: `volatile `, or ''. */
  readonly atomicQualifier: string;
  /**
   * An atomic fetch (`atomicAdd(counter[0], 1)`, core's atomic-functions.ts) as an expression
   * whose value is the element's old value: the operation `op` at `address` (`&counter[0]`) in
   * memory `space`, its operands printed in `dtype` (compare-exchange: the expected value, then
   * the desired one). Absent where the target states no `atomicFetches` (core refuses them first).
   */
  atomicFetch?(
    op: AtomicFetchOp,
    dtype: DType,
    address: string,
    operands: readonly string[],
    printer: CExpressionPrinter,
    space: CAddressSpace,
  ): string;
  /**
   * The statement of a device-wide memory fence (`... gfence`: CUDA's `__threadfence()`), which
   * orders the work-item's global memory accesses before it against those after it, as every
   * work-group sees them. Absent where the target states no `globalFences` (core refuses them first).
   */
  readonly globalFence?: string;

  // --- loops ---
  /**
   * The integer type an array index of several terms is summed in, from its first term on
   * (`a[(int64_t) (n * i) + j]`), or undefined to sum it as the index's int32. A C compiler told
   * that signed integers wrap (`-fwrapv`) cannot see `16 * g + lid_0` step by one as `lid_0` does,
   * since the int32 sum may wrap, and leaves the loop scalar; summed in 64 bits it cannot wrap.
   * The value is the same for every valid access: Loom indexes arrays by int32, so an index
   * within its array was never a wrapped int32 sum.
   */
  readonly wideIndexSums?: string;
  /** The line before a loop that must stay rolled (unroll-guard.ts), or undefined where no compiler needs one. */
  readonly keepRolled: string | undefined;

  // --- the program ---
  /** The lines before the helper functions: pragmas, extensions, includes, the hardware-id macros. */
  prelude(facts: ProgramFacts): string[];
}

/** How images are declared and read (`CDialect.images`). */
export interface ImageSpelling {
  /** A read-only image parameter's declaration (`read_only image2d_t a`). */
  parameter(p: KernelParam): string;
  /** One element of `image` at `coordinates` (x, the last index, first), as a value of dtype `t`. */
  read(image: string, coordinates: readonly string[], t: DType): string;
  /** The lines that open a kernel body reading images (OpenCL's sampler), without indentation. */
  readonly prologue: readonly string[];
}

/** What the printed kernels need, for the dialect's `prelude`. */
export interface ProgramFacts {
  /** Some value or operation is a float64. */
  readonly usesDouble: boolean;
  /** A float product and a float sum or difference were printed: fma material. */
  readonly contractible: boolean;
  /** The program allows `a * b + c` to be fused into an fma. */
  readonly fusedMultiplyAdd: boolean;
  /** What the printed code asked the language to enable (OpenCL extensions), sorted. */
  readonly extensions: readonly string[];
  /** Some float16 value is printed: a half buffer, a float16 name, or a value rounded to float16. */
  readonly float16: boolean;
  /** Some bfloat16 value is printed, likewise. */
  readonly bfloat16: boolean;
  /** Some line is printed with `printf` (a `trace` statement). */
  readonly prints: boolean;
  /** Some matrix instruction (a tensor tile) is printed. */
  readonly matrix: boolean;
}

/**
 * A 16-bit float (float16, bfloat16) stored as such and computed in float: how an element is
 * read, written and rounded.
 */
export interface HalfStorageSpelling {
  /** The float value of `array[index]`, a buffer of the 16-bit float. */
  load(array: string, index: string): string;
  /** The statement storing the float `value` (of the 16-bit float's values already) into `array[index]`. */
  store(array: string, index: string, value: string): string;
  /** The helper rounding a float (or, `fromDouble`, a double) to the 16-bit float, as a float: its name and definition. */
  round(fromDouble: boolean): { readonly name: string; readonly definition: string };
  /**
   * The statement copying `from[fromIndex]` into `to[toIndex]` as it is, where the language can
   * move the 16-bit float without converting it (CUDA's `__half`); absent: through a float.
   */
  copy?(to: string, toIndex: string, from: string, fromIndex: string): string;
}

/** How a language spells vector types. */
export interface VectorSpelling {
  /** The vector type of `lanes` elements of dtype `t` (`float4`). */
  type(t: DType, lanes: number): string;
  /**
   * Lane counts whose arrays are held packed, as plain elements (OpenCL's `float3` has the
   * size of a `float4`), read and written whole with `loadPacked`/`storePacked`.
   */
  readonly packed: readonly number[];
  /** The vector `index` of a packed array (`vload3(i, a)`). */
  loadPacked?(index: string, array: string): string;
  /** The statement storing the vector `value` at vector `index` of a packed array. */
  storePacked?(value: string, index: string, array: string): string;
  /** The member of lane `lane` (`.s2`, `.z`). */
  element(lane: number): string;
  /**
   * Whether assigning one lane of a vector in memory (`a[i].s1 = x`) reads and writes the whole
   * vector (Clang's OpenCL C does: a read-modify-write of 8 or 16 bytes for a 4-byte store, which
   * made every complex store of the H200's FFT kernels a load too, and would lose a lane another
   * work-item writes meanwhile). A lane of a global or local vector is then written through a
   * pointer to the elements instead.
   */
  readonly laneWritesWholeVector?: boolean;
  /**
   * Vector arithmetic: a vector statement is printed once, on whole vectors (OpenCL), with
   * `select` for a conditional per lane. Without it (CUDA's vector types have no operators),
   * a vector statement's value is printed lane by lane and assembled with `construct`.
   */
  readonly arithmetic: boolean;
  /** Per lane: `otherwise` or `then` (both widened to `vectorType`) by the vector condition (OpenCL's `select`). */
  select?(vectorType: string, then: string, otherwise: string, condition: string): string;
  /** A vector of dtype `t` from its lanes' values (`make_float4(a, b, c, d)`). */
  construct?(t: DType, lanes: readonly string[]): string;
}
