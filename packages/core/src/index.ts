/**
 * @loom/core — the kernel model, its transformations and analyses, target-independent
 * code generation, and the `Device` interface. No native dependency.
 *
 * This is the public API, in two parts: what users of Loom call (kernels, transformations,
 * code generation, `run`), and, at the end, what target and device packages build on
 * (@loom/codegen-*, or a backend of one's own): the program AST, name spelling, caches,
 * limits. Nothing else is exported: Loom's tests reach the internals they exercise
 * (`preprocess`, `compileFor`, `domainOf`...) through the source files themselves
 * (`../packages/core/src/...`), so that no internal becomes API by being tested.
 *
 * @module @loom/core
 */

// --- for users: errors and warnings ------------------------------------------------------------
export {
  LoomError,
  InternalError,
  CoefficientRangeError,
  StaticValueFindingError,
  LinearizationError,
  UnscheduledInstructionError,
  DependencyCycleFound,
  MissingDefinitionError,
  MissingBarrierError,
  AliasedArgumentsError,
  VariableAccessNotOrdered,
  LoomWarning,
} from './errors.ts';
export {
  setWarningHandler,
  collectWarnings,
  reportWarning,
  unreachable,
  type SourceSpan,
  type WarningHandler,
} from './errors.ts';
export { KernelCheckError } from './check/index.ts';
export { ReductionIsNotTriangularError } from './reduction/scan-candidate.ts';

// --- for users: dtypes, expressions, sets ------------------------------------------------------
export * from './dtypes.ts';
export { vectorDType, vectorDTypeName, type VectorDTypeName, type VectorLanes } from './vector-dtypes.ts';
export { float16Bits, float16Value, roundToFloat16 } from './float16.ts';
export { bfloat16Bits, bfloat16Value, roundToBfloat16 } from './bfloat16.ts';
export {
  fieldArray,
  isStructDType,
  packStructs,
  structDType,
  structLayout,
  structLeaves,
  unpackStructs,
  type FieldArray,
  type FieldLayout,
  type FieldType,
  type LaidOutElement,
  type LaidOutType,
  type StructDType,
  type StructField,
  type StructLayout,
  type StructLayoutRules,
  type StructLeaf,
  type StructScalar,
  type StructValue,
} from './structs/index.ts';
export type { FieldRef } from './expr/nodes.ts';
/**
 * The expression layer as a namespace: the node constructors (`expr.add`, `expr.variable`...), parsing,
 * printing, traversals and simplification.
 * ```ts
 * const e = expr.add(expr.variable('i'), expr.int(1));
 * ```
 */
export * as expr from './expr/index.ts';
export { isExpressionEqual, parseExpression, printExpr } from './expr/index.ts';
export type { Expr } from './expr/nodes.ts';
export { Linear } from './linear.ts';
export { BasicSet, staticMax, staticMin } from './sets/index.ts';
export { card, PwQPolynomial, QPolynomial, Rational, type ParamValues } from './sets/index.ts';

// --- for users: kernels ------------------------------------------------------------------------
export { LoopKernel } from './kernel/model.ts';
export type {
  CCode,
  KernelArg,
  ArgKind,
  AddressSpace,
  TemporaryVariable,
  Instruction,
  SubstitutionRule,
  InameTag,
  KernelOptions,
  BulkRelease,
  IndexDType,
  DimTag,
  NoSyncScope,
  Preamble,
  InlinedCall,
  FillAhead,
} from './kernel/model.ts';
export { makeKernel, type MakeKernelOptions } from './frontend/make-kernel.ts';
export { makeEinsum, einsumSource, type EinsumSource } from './frontend/einsum.ts';
export {
  globalArg,
  valueArg,
  constantArg,
  imageArg,
  type ArgSpec,
  type ImageArgSpec,
} from './frontend/argument-specs.ts';
export { temporaryVariable, type TemporarySpec } from './frontend/temporary-specs.ts';
export { substitutionRule } from './frontend/substitution-specs.ts';
export { parseInstructions } from './frontend/parse-instructions.ts';
export {
  assignment,
  multipleAssignment,
  type AssignmentOptions,
  type MultipleAssignmentOptions,
  type InstructionSpec,
  noOp,
  type NoOpOptions,
  callInstruction,
  type CallInstructionOptions,
} from './frontend/instruction-specs.ts';
export { cInstruction, type CInstructionOptions } from './frontend/c-instruction.ts';
export { registerReduction, type ReductionDefinition } from './reduction/index.ts';
export { stringifyKernel, type StringifyOptions } from './kernel/print.ts';
export { getDotDependencyGraph, type DotDependencyGraphOptions } from './kernel/dot-dependency-graph.ts';
export { allParams, parentsPerDomain } from './kernel/domain-tree.ts';
export { stridesOf, arrayLayout, formatDimTags, requiredLength, type AxisLayout } from './kernel/strides.ts';

// --- for users: programs of several kernels, calls and inlining ---------------------------------
export {
  Program,
  asProgram,
  makeFunction,
  merge,
  registerCallable,
  renameCallable,
  forEachKernel,
  mapKernel,
  mapEntrypoints,
  type Callable,
} from './program/program.ts';
export { inlineCallableKernel } from './program/inline.ts';
export { packAndUnpackArgsForCall } from './program/pack-args.ts';
export { inferArgDescr } from './program/arg-descr.ts';
export { programKernel } from './program/resolve.ts';
export { sweptInames, type KernelCall } from './kernel/model.ts';

// --- for users: functions of one's own ----------------------------------------------------------
export {
  defineFunction,
  type UserFunction,
  type UserFunctionSpec,
  type FunctionSignature,
  type TargetFunction,
  type JsFunction,
  FUNCTION_DIALECTS,
  type FunctionDialect,
  type SourceDialect,
} from './functions/user-functions.ts';
export { registerFunction } from './functions/resolve.ts';
// Random123's bijections as round assignments (loopy's philox4x32_f32-style functions, @loom/computation's cbrng)
export {
  random123Rounds,
  random123KeyWords,
  wordConstant,
  type Random123Spec,
  type Random123Assignment,
  type Random123Word,
} from './functions/random123.ts';

// --- for users: transformations ----------------------------------------------------------------
export { prioritizeLoops, addDtypes, setOptions, assume } from './transform/basic.ts';
export { duplicateInames, type DuplicateInamesOptions } from './transform/duplicate-inames.ts';
export { splitIname, type SplitInameOptions } from './transform/split-iname.ts';
export {
  tagInames,
  untagInames,
  findUnusedAxisTag,
  type TagSpec,
  type TagInamesOptions,
  type TagKind,
} from './transform/tag-inames.ts';
export { parseMatch, findInstructions, type Within, type MatchExpr } from './transform/match.ts';
export { chunkIname, type ChunkInameOptions } from './transform/chunk-iname.ts';
export { renameInames, type RenameInamesOptions } from './transform/rename-inames.ts';
export { renameInamesInBatch, type InameBatches } from './transform/rename-inames-in-batch.ts';
export { getKennedyUnweightedFusionCandidates, type KennedyFusionOptions } from './transform/loop-fusion.ts';
export { removeUnusedInames } from './transform/remove-unused-inames.ts';
export {
  splitReductionInward,
  splitReductionOutward,
  makeReductionInamesUnique,
  type MakeReductionInamesUniqueOptions,
} from './transform/reduction-inames.ts';
export { mapDomain, affineMapInames } from './transform/map-domain.ts';
export { addInamesToInsn, removeInamesFromInsn, addInamesForUnusedHwAxes } from './transform/instruction-inames.ts';
export {
  getInameDuplicationOptions,
  hasSchedulableInameNesting,
  type InameDuplicationOption,
} from './transform/duplication-options.ts';
export { renameIname, type RenameInameOptions } from './transform/rename-iname.ts';
export { joinInames, type JoinInamesOptions } from './transform/join-inames.ts';
export { fixParameters } from './transform/fix-parameters.ts';
export { diffKernel, type DiffKernelOptions } from './transform/diff.ts';
export { setTemporaryAddressSpace } from './transform/set-temporary-address-space.ts';
export { addNosync, type AddNosyncOptions } from './transform/add-nosync.ts';
export { tagArrayAxes, tagVectorLanes } from './transform/tag-array-axes.ts';
export {
  withAutoOffsets,
  withAutoStrides,
  withFortranOrder,
  withOffset,
  withShapeLessArgs,
} from './kernel/arg-layouts.ts';
export { addPrefetch, type PrefetchOptions } from './transform/prefetch.ts';
export { pipelinePrefetch, type PipelinePrefetchOptions } from './transform/pipeline-prefetch.ts';
export { doubleBuffer, type DoubleBufferOptions } from './transform/double-buffer.ts';
export { asyncCopies, asyncCopyProblem } from './transform/async-copies.ts';
export { bulkCopies } from './transform/bulk-copies.ts';
export { swizzleArray } from './transform/swizzle-array.ts';
export { swizzleIndex, unswizzleIndex } from './codegen/swizzle.ts';
export { tensorize, type TensorTile, type TensorizeOptions } from './transform/tensorize.ts';
export { extractSubst, expandSubst, findRulesMatching, findOneRuleMatching } from './transform/substitutions.ts';
export { assignmentToSubst, type AssignmentToSubstOptions } from './transform/assignment-to-subst.ts';
export { bufferArray, type BufferArrayOptions } from './transform/buffer-array.ts';
export {
  aliasTemporaries,
  allocateTemporariesForBaseStorage,
  type AliasTemporariesOptions,
} from './transform/alias-temporaries.ts';
export {
  removeInstructions,
  setInstructionPriority,
  addDependency,
  replaceInstructionIds,
  tagInstructions,
  addBarrier,
  type AddBarrierOptions,
} from './transform/instructions.ts';
export {
  renameArgument,
  setArgumentOrder,
  removeUnusedArguments,
  changeArgToImage,
  setArrayAxisNames,
} from './transform/arguments.ts';
export {
  inferUnknownTypes,
  addAndInferDtypes,
  getOneLinearizedKernel,
  preprocessKernel,
  linearize,
} from './transform/pipeline.ts';
export {
  getGlobalBarrierOrder,
  findMostRecentGlobalBarrier,
  getSubkernels,
  getSubkernelToInsnIdMap,
} from './kernel/global-barriers.ts';
export type { LinearizedKernel } from './codegen/generate.ts';
export {
  mapInstructions,
  uniquifyInstructionIds,
  removePredicatesFromInsn,
  foldConstants,
  simplifyIndices,
} from './transform/instruction-maps.ts';
export { collectCommonFactorsOnIncrement } from './transform/common-factors.ts';
export { privatizeTemporariesWithInames, unprivatizeTemporariesWithInames } from './transform/privatize.ts';
export {
  concatenateArrays,
  splitArrayAxis,
  findPaddingMultiple,
  addPadding,
  addPaddingToAvoidBankConflicts,
} from './transform/array-shapes.ts';
export { toBatched, type ToBatchedOptions } from './transform/batch.ts';
export { makeCopyKernel } from './transform/copy-kernel.ts';
export { fuseKernels, type FuseKernelsOptions } from './transform/fuse.ts';
export { saveAndReloadTemporaries } from './transform/save-reload.ts';
export { precompute, type PrecomputeOptions } from './transform/precompute.ts';
export { reductionArgToSubstRule, realizeReduction, type ReductionTransformOptions } from './transform/reductions.ts';
export type { RealizeReductionOptions } from './preprocess/realize-reductions.ts';
export type { ScanOptions } from './reduction/scan.ts';

// --- for users: statistics (operations, memory accesses, synchronizations, footprints) ------------
export {
  getOpMap,
  getMemAccessMap,
  getSynchronizationMap,
  getStatistics,
  gatherAccessFootprints,
  gatherAccessFootprintBytes,
  ToCountMap,
  GuardedPwQPolynomial,
  Op,
  MemAccess,
  Sync,
  CountGranularity,
  AccessFootprint,
  AccessFootprints,
  estimateTime,
  kernelWork,
  measureDeviceProfile,
  measureKernelSeconds,
  measuredArrays,
  type MeasuredArray,
} from './statistics/index.ts';
export type {
  KernelStatistics,
  OpMap,
  OpMapOptions,
  MemAccessMap,
  MemAccessMapOptions,
  SyncMap,
  FootprintDirection,
  FootprintOptions,
  FieldFilter,
  KeyKind,
  CountKey,
  OpFields,
  MemAccessFields,
  SyncFields,
  Stride,
  Strides,
  StridesInput,
  InstructionCountOptions,
  DeviceProfile,
  TimeEstimate,
  KernelWork,
  ProfileOptions,
} from './statistics/index.ts';

// --- for users: code generation and running ----------------------------------------------------
export { generateCode, stringifyLinearized, type CodegenOptions } from './codegen/generate.ts';
export { generateHeader } from './codegen/header.ts';
export { getGridSizeUpperBounds } from './codegen/grid.ts';
export { constantLocalSize, printLocalSize, requireConstantLocalSize } from './codegen/local-size.ts';
export type { ScheduleItem } from './schedule/linearize.ts';
export {
  programCode,
  type GeneratedCode,
  type DeviceKernel,
  type DeviceParameter,
  type HostSteps,
  type HostArgument,
  type HostTemporary,
} from './codegen/generated.ts';
export type { BoundsChecks, BoundsSite } from './codegen/access-guards.ts';
export { run, type RunOutputs, type RunOptions } from './runtime/run.ts';
export { growBatch } from './runtime/time-launches.ts';
export { GPU_WARM_UP_SECONDS, noteTimed, warmUpDue } from './runtime/warm-up.ts';
export {
  autoTestVsRef,
  AutomaticTestFailure,
  type AutoTestOptions,
  type AutoTestResult,
} from './runtime/auto-test.ts';
export { prepareLaunch, type PreparedLaunch, type PreparedKernel } from './runtime/prepare.ts';
export {
  autotune,
  defineTuning,
  isTuningProblem,
  memoryTuningCache,
  type TuningProblem,
  type TuningArguments,
  type TuningCache,
  type TunedEntry,
  type TuningProgress,
  type TuningResult,
  type Trial,
  type AutotuneOptions,
} from './tune/autotune.ts';
export {
  autoSchedule,
  applySchedule,
  scheduleScript,
  predictScheduleTime,
  type AutoScheduleOptions,
  type AutoScheduleProgress,
  type AutoScheduleResult,
  type MeasuredCandidate,
  type PredictedCandidate,
  type ScheduleStep,
  type SpaceRestrictions,
  type CostBreakdown,
} from './tune/auto-schedule/index.ts';
export type { ComplexScalar, RunArgument, ShapedHostArray } from './runtime/arguments.ts';
export type { StructArgument } from './runtime/struct-arguments.ts';
export { LruCache, forgetParsedTexts, getDefaultCacheSize, setDefaultCacheSize } from './lru.ts';
export { debugMode, setDebugMode } from './runtime/environment.ts';

// --- for packages that add transformations of their own (@loom/computation) ------------------------
export { mapKernelExpressions, type ExprRewrite, type MapExpressionsOptions } from './kernel/rewrite-expressions.ts';

// --- for target and device packages ------------------------------------------------------------
export type {
  Stmt,
  KernelFunction,
  DeviceFunction,
  FunctionParam,
  PrivateArrayParam,
  KernelParam,
  LocalArgument,
  ProgramAst,
  HostStep,
  VectorLoop,
  MatrixOp,
  MatrixOperand,
  Fragment,
} from './codegen/ast.ts';
export { constantLength, initializerLiteral } from './codegen/ast.ts';
export { serializeWorkItems } from './codegen/serialize-work-items.ts';
export { programStructs, structElementIndex } from './codegen/struct-elements.ts';
export { laneOf, vectorIndex, VECTOR_LANES } from './codegen/vectorize.ts';
export { intervalOf, type Interval } from './codegen/index-range.ts';
export {
  walkStmts,
  mapStmts,
  someStmt,
  subStatements,
  statementsOf,
  statementsOfKind,
  ownExpressions,
  type StmtVisitor,
  type StmtMapper,
} from './codegen/stmt-visit.ts';
export type {
  Target,
  TargetOutput,
  ImageSupport,
  DeviceFunctionSupport,
  SubgroupSupport,
  AtomicFetchSupport,
  MatrixSupport,
  MatrixShape,
} from './codegen/target.ts';
export { targetFacts, holdsVectors, type TargetFacts } from './codegen/target-facts.ts';
export { WGMMA_SHAPES, WMMA_SHAPES } from './codegen/matrix-shapes.ts';
export {
  MATH_FUNCTIONS,
  isMathFunction,
  mathFunctionsWhere,
  type MathFunction,
  type MathFunctionName,
} from './expr/math-functions.ts';
export { MATH_DERIVATIVES, type MathDerivative } from './expr/math-derivatives.ts';
export {
  SUBGROUP_FUNCTIONS,
  isSubgroupFunction,
  subgroupFunction,
  type SubgroupFunction,
  type SubgroupFunctionName,
} from './expr/subgroup-functions.ts';
export {
  ATOMIC_FUNCTIONS,
  isAtomicFunction,
  atomicFunction,
  type AtomicFunction,
  type AtomicFunctionName,
} from './expr/atomic-functions.ts';
export { missingImplementation } from './functions/user-functions.ts';
export { buildProgram, programShape } from './codegen/generate.ts';
export {
  divisionTruncates,
  indexFacts,
  indexNames,
  isIndexExpression,
  isNonNegative,
  nonNegativeNames,
  type IndexFacts,
} from './codegen/index-names.ts';
export {
  exprType,
  exprTypes,
  resultTypes,
  combineTypes,
  isHardwareId,
  type ExprType,
  type NameTypes,
} from './kernel/type-inference.ts';
export { nameTable, commentText, checkInternalName, TargetNames, type ReservedTest } from './names.ts';
export { programNames, renameProgram } from './codegen/program-names.ts';
export {
  DeviceArray,
  DeviceArrayView,
  isImmutableArguments,
  type Device,
  type DeviceBuffer,
  type LaunchArgument,
  type QueuedLaunch,
} from './runtime/device.ts';
export { BufferPool, DEFAULT_POOL_BYTES, sizeClass, type BufferPoolStats } from './runtime/buffer-pool.ts';
export { PooledBuffer, type PooledBufferNames } from './runtime/pooled-buffer.ts';
export { evaluateInt, valuesEnv, type IntEnv } from './runtime/evaluate.ts';
export { COMMON_LIMITS, MAX_INDEX, checkProgramLimits, checkBufferSize, type DeviceLimits } from './runtime/limits.ts';
export { imageExtents } from './runtime/images.ts';
export { scalarBytes } from './runtime/scalar-bytes.ts';
export { perObject } from './memo.ts';
export { checkOptionKeys, didYouMean, optionKeys, type CheckOptionKeysHints } from './option-keys.ts';
export { MissingPackageError, isPackageNotFound } from './runtime/optional-package.ts';
