/** A target spells the program AST in one language. */
import type { DType } from '../dtypes.ts';
import type { ProgramAst } from './ast.ts';

export interface Target {
  /** 'opencl', 'wgsl', 'js'. */
  readonly name: string;
  /** Device source code for the program. */
  generate(program: ProgramAst): string;
  /** Why a dtype cannot be used here, or undefined when it can. */
  unsupportedDType?(dtype: DType): string | undefined;
}

/** What `generateCode` returns: the device code and the launch description. */
export interface GeneratedCode {
  readonly target: string;
  readonly code: string;
  readonly program: ProgramAst;
  toString(): string;
}
