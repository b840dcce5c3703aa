/**
 * @loom/core — the kernel model, its transformations and analyses, target-independent
 * code generation, and the `Device` interface. No native dependency.
 */
export { LoomError, InternalError, CoefficientRangeError, StaticValueFindingError, LinearizationError, MissingDefinitionError, MissingBarrierError, LoomWarning } from './errors.ts';
export { setWarningHandler, reportWarning, collectWarnings, type SourceSpan, type WarningHandler } from './errors.ts';
export { Linear } from './linear.ts';
export {
  NAME_PATTERN, isName, checkName, checkNames, checkInternalName, showName, nameTable, ownEntry, commentText, TargetNames, type ReservedTest,
} from './names.ts';
export { programNames, renameProgram, checkProgramNames } from './codegen/program-names.ts';
export { LruCache, getDefaultCacheSize, setDefaultCacheSize } from './lru.ts';
export { perObject } from './memo.ts';
export * from './dtypes.ts';
export { float16Bits, float16Value, roundToFloat16 } from './float16.ts';

export * as expr from './expr/index.ts';
export { parseExpression, printExpr } from './expr/index.ts';
export type { Expr } from './expr/nodes.ts';
export { BasicSet, staticMax, staticMin } from './sets/index.ts';

export { LoopKernel, tagToString, isParallelTag, parseNoSync, NO_SYNC_SCOPES } from './kernel/model.ts';
export type {
  KernelArg, ArgKind, AddressSpace, TemporaryVariable, Instruction, SubstitutionRule, InameTag, KernelOptions, DimTag, NoSyncScope,
} from './kernel/model.ts';
export { makeKernel, globalArg, valueArg, constantArg, type ArgSpec, type MakeKernelOptions } from './kernel/make-kernel.ts';
export { stringifyKernel, type StringifyOptions } from './kernel/print.ts';
export { parseInstructions } from './kernel/parse-instructions.ts';
export { assignment, type AssignmentOptions, type InstructionSpec } from './kernel/instruction-specs.ts';
export { exprType, combineTypes, isHardwareId, INDEX_DTYPE, type ExprType, type NameTypes } from './kernel/type-inference.ts';
export { domainOf } from './kernel/domains.ts';

export { prioritizeLoops, addDtypes, setOptions, assume } from './transform/basic.ts';
export { duplicateInames, type DuplicateInamesOptions } from './transform/duplicate-inames.ts';
export { splitIname, type SplitInameOptions } from './transform/split-iname.ts';
export { tagInames, type TagSpec } from './transform/tag-inames.ts';
export { renameIname, type RenameInameOptions } from './transform/rename-iname.ts';
export { joinInames, type JoinInamesOptions } from './transform/join-inames.ts';
export { fixParameters } from './transform/fix-parameters.ts';
export { setTemporaryAddressSpace } from './transform/set-temporary-address-space.ts';
export { addNosync, type AddNosyncOptions } from './transform/add-nosync.ts';
export { tagArrayAxes, parseDimTags } from './transform/tag-array-axes.ts';
export { stridesOf, rowMajorStrides, arrayLayout, formatDimTags, requiredLength, requiredLengthExpr, type AxisLayout } from './kernel/strides.ts';
export { waivesBarrier } from './kernel/dependencies.ts';
export { addPrefetch, type PrefetchOptions } from './transform/prefetch.ts';
export { saveAndReloadTemporaries } from './transform/save-reload.ts';
export { precompute, type PrecomputeOptions } from './transform/precompute.ts';
export { getGridSizeUpperBounds } from './codegen/grid.ts';

export { linearize, scheduleToString, type ScheduleItem } from './schedule/linearize.ts';
export { generateCode, buildProgram, preprocess, linearizeKernel, stringifyLinearized, type CodegenOptions } from './codegen/generate.ts';
export type { BoundsChecks, BoundsSite } from './codegen/access-guards.ts';
export { KernelCheckError } from './check/index.ts';
export type { Stmt, KernelFunction, KernelParam, ProgramAst } from './codegen/ast.ts';
export type { Target, TargetOutput } from './codegen/target.ts';
export { programCode, type GeneratedCode, type DeviceKernel, type DeviceParameter, type HostSteps, type HostArgument, type HostTemporary } from './codegen/generated.ts';

export { DeviceArray, type Device, type DeviceBuffer, type LaunchArgument } from './runtime/device.ts';
export { COMMON_LIMITS, MAX_INDEX, checkProgramLimits, checkGridLimits, checkBufferSize, type DeviceLimits } from './runtime/limits.ts';
export { run, compileFor, type RunOutputs, type RunOptions } from './runtime/run.ts';
export { prepareLaunch, type PreparedLaunch, type PreparedKernel } from './runtime/prepare.ts';
export type { RunArgument, ShapedHostArray } from './runtime/arguments.ts';
export { MissingPackageError, isPackageNotFound } from './runtime/optional-package.ts';
