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
 */

// --- for users: errors and warnings ------------------------------------------------------------
export {
  LoomError, InternalError, CoefficientRangeError, StaticValueFindingError, LinearizationError, MissingDefinitionError,
  MissingBarrierError, LoomWarning,
} from './errors.ts';
export { setWarningHandler, collectWarnings, type SourceSpan, type WarningHandler } from './errors.ts';
export { KernelCheckError } from './check/index.ts';

// --- for users: dtypes, expressions, sets ------------------------------------------------------
export * from './dtypes.ts';
export { float16Bits, float16Value, roundToFloat16 } from './float16.ts';
export * as expr from './expr/index.ts';
export { parseExpression, printExpr } from './expr/index.ts';
export type { Expr } from './expr/nodes.ts';
export { Linear } from './linear.ts';
export { BasicSet, staticMax, staticMin } from './sets/index.ts';

// --- for users: kernels ------------------------------------------------------------------------
export { LoopKernel } from './kernel/model.ts';
export type {
  KernelArg, ArgKind, AddressSpace, TemporaryVariable, Instruction, SubstitutionRule, InameTag, KernelOptions, DimTag, NoSyncScope,
} from './kernel/model.ts';
export { makeKernel, globalArg, valueArg, constantArg, type ArgSpec, type MakeKernelOptions } from './frontend/make-kernel.ts';
export { parseInstructions } from './frontend/parse-instructions.ts';
export { assignment, type AssignmentOptions, type InstructionSpec } from './frontend/instruction-specs.ts';
export { stringifyKernel, type StringifyOptions } from './kernel/print.ts';
export { stridesOf, arrayLayout, formatDimTags, requiredLength, type AxisLayout } from './kernel/strides.ts';

// --- for users: transformations ----------------------------------------------------------------
export { prioritizeLoops, addDtypes, setOptions, assume } from './transform/basic.ts';
export { duplicateInames, type DuplicateInamesOptions } from './transform/duplicate-inames.ts';
export { splitIname, type SplitInameOptions } from './transform/split-iname.ts';
export { tagInames, type TagSpec } from './transform/tag-inames.ts';
export { renameIname, type RenameInameOptions } from './transform/rename-iname.ts';
export { joinInames, type JoinInamesOptions } from './transform/join-inames.ts';
export { fixParameters } from './transform/fix-parameters.ts';
export { setTemporaryAddressSpace } from './transform/set-temporary-address-space.ts';
export { addNosync, type AddNosyncOptions } from './transform/add-nosync.ts';
export { tagArrayAxes } from './transform/tag-array-axes.ts';
export { addPrefetch, type PrefetchOptions } from './transform/prefetch.ts';
export { saveAndReloadTemporaries } from './transform/save-reload.ts';
export { precompute, type PrecomputeOptions } from './transform/precompute.ts';

// --- for users: code generation and running ----------------------------------------------------
export { generateCode, stringifyLinearized, type CodegenOptions } from './codegen/generate.ts';
export { getGridSizeUpperBounds } from './codegen/grid.ts';
export type { ScheduleItem } from './schedule/linearize.ts';
export { programCode, type GeneratedCode, type DeviceKernel, type DeviceParameter, type HostSteps, type HostArgument, type HostTemporary } from './codegen/generated.ts';
export type { BoundsChecks, BoundsSite } from './codegen/access-guards.ts';
export { run, type RunOutputs, type RunOptions } from './runtime/run.ts';
export { prepareLaunch, type PreparedLaunch, type PreparedKernel } from './runtime/prepare.ts';
export type { RunArgument, ShapedHostArray } from './runtime/arguments.ts';
export { LruCache, getDefaultCacheSize, setDefaultCacheSize } from './lru.ts';

// --- for target and device packages ------------------------------------------------------------
export type { Stmt, KernelFunction, KernelParam, ProgramAst } from './codegen/ast.ts';
export { walkStmts, mapStmts, someStmt, subStatements, statementsOf, statementsOfKind, ownExpressions, type StmtVisitor, type StmtMapper } from './codegen/stmt-visit.ts';
export type { Target, TargetOutput } from './codegen/target.ts';
export { buildProgram } from './codegen/generate.ts';
export { exprType, combineTypes, isHardwareId, type ExprType, type NameTypes } from './kernel/type-inference.ts';
export { nameTable, commentText, checkInternalName, TargetNames, type ReservedTest } from './names.ts';
export { programNames, renameProgram } from './codegen/program-names.ts';
export { DeviceArray, isImmutableArguments, type Device, type DeviceBuffer, type LaunchArgument } from './runtime/device.ts';
export { BufferPool, DEFAULT_POOL_BYTES, sizeClass, type BufferPoolStats } from './runtime/buffer-pool.ts';
export { COMMON_LIMITS, MAX_INDEX, checkProgramLimits, checkBufferSize, type DeviceLimits } from './runtime/limits.ts';
export { perObject } from './memo.ts';
export { MissingPackageError, isPackageNotFound } from './runtime/optional-package.ts';
