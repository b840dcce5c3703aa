/**
 * A target spells the program AST in one language. What it returns besides the code is
 * what its device needs to run that code and would otherwise have to work out again
 * (WGSL's binding layout, the JavaScript functions' layouts): `Extra`, typed per target,
 * reaches the device through `GeneratedCode<Extra>` (generated.ts).
 */
import type { DType } from '../dtypes.ts';
import type { ProgramAst } from './ast.ts';

/**
 * A code generation target: spells the program AST in one language (OpenCL C, WGSL, JavaScript) and returns
 * with it what its device needs (`Extra`).
 */
export interface Target<Extra = unknown> {
  /** 'opencl', 'wgsl', 'js'. */
  readonly name: string;
  /** Device source code for the program, and what the device needs to know about it. */
  generate(program: ProgramAst): TargetOutput<Extra>;
  /**
   * Whether loops over `vec` inames become vector code (OpenCL's `float4`); a target
   * without vector types gets them unrolled, lane by lane (codegen/vectorize.ts).
   */
  readonly vectorTypes?: boolean;
  /**
   * The lane counts of the target's vector types (default all of `VECTOR_LANES`, OpenCL's):
   * a `vec` loop of another length is unrolled. WGSL's are 2 and 4 (a `vec3` has the
   * stride of a `vec4` in a storage array).
   */
  readonly vectorLanes?: readonly number[];
  /** Why a dtype cannot be used here, or undefined when it can. */
  unsupportedDType?(dtype: DType): string | undefined;
}

/** One program spelled by a target. */
export interface TargetOutput<Extra = unknown> {
  /** The program in the target's language. */
  readonly code: string;
  /** Each kernel's name as the code spells it (`kernel` is `kernel_` in OpenCL C), in program order. */
  readonly entryPoints: readonly string[];
  /** The target's own facts about the code, for its device. */
  readonly extra: Extra;
}

/** What a target tells its device: `ExtraOf<Target<E>>` is `E` (of a union of targets, the union). */
export type ExtraOf<T> = T extends Target<infer Extra> ? Extra : never;

export type { GeneratedCode } from './generated.ts';
