/**
 * What a target states about itself (target.ts), with the defaults of the facts it leaves out
 * filled in: the one place other layers read them from. Kysely's `DialectAdapter` is the model:
 * a layer asks whether the target has a capability (vector arrays of int8, work-items that run
 * one after another, C code for user functions), never which target it is, so a new target that
 * states its facts is handled everywhere without an edit outside its package.
 */
import { DTYPES, isComplex, isNarrowFloat, type DType } from '../dtypes.ts';
import type { FunctionDialect } from '../functions/user-functions.ts';
import type {
  AtomicFetchSupport,
  DeviceFunctionSupport,
  ImageSupport,
  MatrixSupport,
  SubgroupSupport,
  Target,
} from './target.ts';
import type { StructLayoutRules } from '../structs/layout.ts';
import { VECTOR_LANES } from './vectorize.ts';

/** A target's facts, each one stated or its default (target.ts documents them). */
export interface TargetFacts {
  /** Whether loops over `vec` inames become vector code. */
  readonly vectorTypes: boolean;
  /** The lane counts of its vector types. */
  readonly vectorLanes: readonly number[];
  /** The dtypes its vector types hold in an array. */
  readonly vectorDTypes: ReadonlySet<DType>;
  /** Whether an array of vectors is bound whole, so that its storage must hold whole vectors. */
  readonly wholeVectorStorage: boolean;
  /** Whether vector code is best written as whole-vector statements rather than lane by lane. */
  readonly preferVectorStatements: boolean;
  /** The 32-bit values straight-line code may keep live before its compilers slow it down; undefined: no such limit. */
  readonly livePrivateValues: number | undefined;
  /** Whether its compilers unroll short loops of constant trip count themselves. */
  readonly unrollsConstantLoops: boolean;
  /** Whether the work-items of a group run one after another. */
  readonly sequentialWorkItems: boolean;
  /** Work-items that run in lockstep. */
  readonly subgroupSize: number;
  /** Whether kernels may call subgroup functions, on which dtypes and how wide a subgroup is; or why not. */
  readonly subgroups: SubgroupSupport;
  /** The matrix instructions tensor tiles become, or why there are none. */
  readonly matrixInstructions: MatrixSupport;
  /** Whether it passes a request for work-groups per compute unit to its compiler. */
  readonly occupancyHints: boolean;
  /** Whether it issues asynchronous copies into local memory (or completes them at once: sequential work-items). */
  readonly asyncCopies: boolean;
  /** Whether it moves a tile of asynchronous copies as one bulk transfer (or completes them at once: sequential work-items). */
  readonly bulkCopies: boolean;
  /** The keys of a user function's implementations it reads, most specific first. */
  readonly functionDialects: readonly FunctionDialect[];
  /** The dtypes an `{atomic}` update may have. */
  readonly atomicDTypes: ReadonlySet<DType>;
  /** Of which dtypes it has atomic fetches (`old = atomicAdd(counter[0], 1)`), or why none. */
  readonly atomicFetches: AtomicFetchSupport;
  /** Whether it has a device-wide memory fence (`... gfence`), or why not. */
  readonly globalFences: true | { readonly refused: string };
  /** Whether it compiles C code given as is (`cInstruction`, loopy's CInstruction). */
  readonly cInstructions: boolean;
  /** Whether device code can print a line (`trace` statements: loopy's trace_assignments). */
  readonly prints: boolean;
  /** The address spaces whose temporaries may have a size known only at launch. */
  readonly runtimeSizedArrays: ReadonlySet<'private' | 'local'>;
  /** Whether a local array sized at launch is a launch argument (OpenCL's `__local T *`, CUDA's dynamic shared memory, WGSL's override). */
  readonly localArraysAsArguments: boolean;
  /** Whether float arithmetic keeps NaN and infinities. */
  readonly floatSpecials: boolean;
  /** Whether the sign of a float zero is kept. */
  readonly signedZeros: boolean;
  /** The float dtypes whose subnormal values may be flushed to zero. */
  readonly flushesSubnormals: ReadonlySet<DType>;
  /** The 16-bit float dtypes its temporaries hold as float32 (4 bytes an element: they are computed in float). */
  readonly heldInFloat: ReadonlySet<DType>;
  /** Whether float division, math functions and `fma` are held only to WGSL's looser accuracy. */
  readonly relaxedFloatAccuracy: boolean;
  /** How it reads image arguments: as images, as global arrays, or not at all (and why). */
  readonly images: ImageSupport;
  /** How it calls callee kernels as functions, or false: it inlines them. */
  readonly deviceFunctions: DeviceFunctionSupport | false;
  /** The rules by which it lays out struct dtypes. */
  readonly structLayoutRules: StructLayoutRules;
  /** Why a dtype cannot be used here, or undefined when it can. */
  unsupportedDType(dtype: DType): string | undefined;
}

/** OpenCL C's vector types hold every real dtype but bool (no vectors in buffers), float16 (an extension) and bfloat16 (none). */
const DEFAULT_VECTOR_DTYPES: readonly DType[] = DTYPES.filter(
  (t) => t !== 'bool' && !isNarrowFloat(t) && !isComplex(t),
);

/** Warp-sized: NVIDIA's warp, and a multiple of most other GPUs' subgroups. */
const DEFAULT_SUBGROUP_SIZE = 32;

/** Facts already read, per target object (a device keeps its target: every plan asks again). */
const known = new WeakMap<Target, TargetFacts>();

/** The facts of `target`, its defaults filled in. */
export function targetFacts(target: Target): TargetFacts {
  let facts = known.get(target);
  if (!facts) known.set(target, (facts = readFacts(target)));
  return facts;
}

function readFacts(target: Target): TargetFacts {
  const sequentialWorkItems = target.sequentialWorkItems ?? false;
  return {
    vectorTypes: target.vectorTypes ?? false,
    vectorLanes: target.vectorLanes ?? VECTOR_LANES,
    vectorDTypes: new Set(target.vectorDTypes ?? DEFAULT_VECTOR_DTYPES),
    wholeVectorStorage: target.wholeVectorStorage ?? false,
    preferVectorStatements: target.preferVectorStatements ?? false,
    livePrivateValues: target.livePrivateValues,
    unrollsConstantLoops: target.unrollsConstantLoops ?? true,
    sequentialWorkItems,
    subgroupSize: target.subgroupSize ?? (sequentialWorkItems ? 1 : DEFAULT_SUBGROUP_SIZE),
    subgroups:
      target.subgroups ??
      (sequentialWorkItems
        ? { refused: 'its work-items run one after another, so none of them ever run in lockstep as a subgroup' }
        : { refused: 'it has no subgroup operations' }),
    matrixInstructions: target.matrixInstructions ?? { refused: 'it has no matrix instructions' },
    occupancyHints: target.occupancyHints ?? false,
    asyncCopies: target.asyncCopies ?? sequentialWorkItems,
    bulkCopies: target.bulkCopies ?? sequentialWorkItems,
    functionDialects: target.functionDialects ?? [],
    atomicDTypes: new Set(target.atomicDTypes ?? []),
    atomicFetches: target.atomicFetches ?? { refused: 'it has no atomic fetches' },
    globalFences: target.globalFences ?? { refused: 'it has no device-wide memory fence' },
    cInstructions: target.cInstructions ?? false,
    prints: target.prints ?? false,
    runtimeSizedArrays: new Set(target.runtimeSizedArrays ?? []),
    localArraysAsArguments: target.localArraysAsArguments ?? false,
    floatSpecials: target.floatSpecials ?? true,
    signedZeros: target.signedZeros ?? true,
    flushesSubnormals: new Set(target.flushesSubnormals ?? []),
    heldInFloat: new Set(target.heldInFloat ?? []),
    relaxedFloatAccuracy: target.relaxedFloatAccuracy ?? false,
    images: target.images ?? 'emulated',
    deviceFunctions: target.deviceFunctions ?? false,
    structLayoutRules: target.structLayoutRules ?? 'c',
    unsupportedDType: (dtype) => target.unsupportedDType?.(dtype),
  };
}

/** Whether the target holds `dtype` in arrays of vectors of `lanes` lanes. */
export function holdsVectors(facts: TargetFacts, dtype: DType, lanes: number): boolean {
  return facts.vectorTypes && facts.vectorLanes.includes(lanes) && facts.vectorDTypes.has(dtype);
}
