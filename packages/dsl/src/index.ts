/**
 * @loom/dsl — kernels written inline in TypeScript, transformed fluently, and checked by
 * the compiler.
 *
 *   kernel(domain`{ [i]: 0<=i<n }`, insn`out[i] = 2*a[i]`, { name: 'double' })
 *     .args({ a: f32('n'), out: f32.out('n') })
 *     .split('i', 128, { outer: 'g.0', inner: 'l.0' })
 *
 * The `loom typegen` CLI (and `@loom/dsl/typegen`) types kernels written with templates.
 */
export { kernel, type Domains, type Instructions } from './builder/kernel.ts';
export { KernelBuilder } from './builder/builder.ts';
export type { BuilderFor } from './builder/typing.ts';
export type { KernelBuilderOptions, SplitOptions, TileOptions, PrefetchOptions, StatsOptions } from './builder/options.ts';
export type { Tag, Axis, CheckedInameList } from './builder/inames.ts';
export { domain, insn } from './template/tags.ts';
export { Fragment, type DomainFragment, type InsnFragment, type Interpolation, type TemplateLocation } from './template/fragments.ts';
export { templateLocationOf } from './template/errors.ts';
export { bool, i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64, type ElementType } from './signature/element-types.ts';
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
