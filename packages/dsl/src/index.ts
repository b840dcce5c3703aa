/**
 * @loom/dsl — kernels written inline in TypeScript, transformed fluently, and checked by
 * the compiler.
 *
 *   kernel(domain`{ [i]: 0<=i<n }`, insn`out[i] = 2*a[i]`, { name: 'double' })
 *     .args({ a: f32('n'), out: f32.out('n') })
 *     .split('i', 128, { outer: 'g.0', inner: 'l.0' })
 *
 * The `loom typegen` CLI (and `@loom/dsl/typegen`) types kernels written with templates.
 *
 * @module @loom/dsl
 */
export { kernel, type Domains, type Instructions } from './builder/kernel.ts';
export { anyDevice, type AnyDeviceOptions, type DeviceKind } from './any-device.ts';
export { KernelBuilder } from './builder/builder.ts';
export { ProgramBuilder } from './builder/program.ts';
export {
  einsum,
  type EinsumInames,
  type EinsumOperandCount,
  type EinsumSignature,
} from './builder/einsum.ts';
export type { Callee, Callees, CheckedCallees, SignatureOf } from './builder/call-checks.ts';
export type { CallFact, CallFacts } from './parse/calls.ts';
export type { BuilderFor } from './builder/typing.ts';
export type { AttachableTransformation, TransformationParam } from './builder/attachable.ts';
export type {
  KernelBuilderOptions,
  SplitOptions,
  TileOptions,
  PrefetchOptions,
  StatsOptions,
} from './builder/options.ts';
export type { Tag, Axis, CheckedInameList } from './builder/inames.ts';
export { domain, insn } from './template/tags.ts';
export {
  Fragment,
  type DomainFragment,
  type InsnFragment,
  type Interpolation,
  type TemplateLocation,
} from './template/fragments.ts';
export { templateLocationOf } from './template/errors.ts';
export {
  bool,
  i8,
  i16,
  i32,
  i64,
  u8,
  u16,
  u32,
  u64,
  f16,
  bf16,
  f32,
  f64,
  type ElementType,
  type VectorElementType,
} from './signature/element-types.ts';
// vector element types: n float4s are f32x4('n'), a Float32Array of 4n
export {
  f32x2,
  f32x3,
  f32x4,
  f32x8,
  f32x16,
  f64x2,
  f64x3,
  f64x4,
  f64x8,
  f64x16,
  i32x2,
  i32x3,
  i32x4,
  i32x8,
  i32x16,
  u32x2,
  u32x3,
  u32x4,
  u32x8,
  u32x16,
  i8x4,
  u8x4,
} from './signature/element-types.ts';
export type { ArgDecl, ArgDecls, ArrayDecl, ValueDecl, Mode, ShapeEntry } from './signature/arg-decls.ts';
export type { DeclaredSignature, Inferable } from './signature/declared.ts';
export type { InferredSignature } from './signature/infer.ts';
export type { InamesOfDomains, ParamsOfDomains } from './parse/domain.ts';
export type {
  ArgInfo,
  Signature,
  LooseSignature,
  AnySignature,
  KernelRegistry,
  RegisteredKernel,
  HostArrays,
  HostOf,
  ArrayArgument,
  ValueArgument,
  RunArgs,
  Outputs,
} from './signature/signature.ts';
