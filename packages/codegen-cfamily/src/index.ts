/**
 * @loom/codegen-cfamily: the C printer that C-family targets share. It prints Loom's program
 * AST as C (expressions, statements, kernels, the helper functions Loom's arithmetic needs),
 * and asks a dialect (`CDialect`) for everything a language spells its own way: OpenCL C
 * (`openclDialect` in @loom/codegen-opencl) and CUDA C (@loom/codegen-cuda) are dialects.
 *
 * @module @loom/codegen-cfamily
 */
export type {
  AtomicFetchOp,
  CAddressSpace,
  CDialect,
  HalfStorageSpelling,
  ImageSpelling,
  LocalArraySpelling,
  ProgramFacts,
  VectorSpelling,
} from './dialect.ts';
export { printCProgram, dialectNames, type CProgram, type CProgramOptions } from './program.ts';
export { CExpressionPrinter, type VectorArray } from './expressions.ts';
export { PRECEDENCE, paren, type Printed } from './precedence.ts';
export { atomicUpdateOf, type AtomicUpdate } from './atomics.ts';
export { helperName, type HelperKind } from './arithmetic-helpers.ts';
export { KEEP_ROLLED } from './unroll-guard.ts';
export { printSubgroupCall, type ShuffleMode, type SubgroupSink, type SubgroupSpelling } from './subgroups.ts';
export { C_MATH_FUNCTIONS } from './math-names.ts';
export { cFamilyLiteral, saturatingFloatToInteger, type LiteralSpelling } from './literals.ts';
export { printMatrixOp, type MatrixSpelling, type PrintedProduct, type PrintedTile } from './matrix.ts';
export type { AsyncCopySpelling } from './async-copies.ts';
export type { BulkCopySpelling, TensorMapSpec } from './bulk-copies.ts';
