/**
 * Calls of user functions (`defineFunction`) in a WGSL module: each is called by the name its
 * WGSL implementation gives, which the module's names must leave to it (WGSL has no overloads
 * and no shadowing of a function by a variable in scope), and its preamble is written once,
 * beside the helpers.
 */
import {
  InternalError,
  LoomError,
  missingImplementation,
  type DType,
  type FunctionSignature,
  type UserFunction,
} from '@loom/core';

/** The implementations a WGSL module reads: WGSL's own (wgslTarget states them). */
export const WGSL_FUNCTION_DIALECTS = ['wgsl'] as const;
import type { NameTable } from './names.ts';

export class UserFunctions {
  /** The preambles of the functions called, each once (by text). */
  readonly preambles = new Set<string>();
  /** Which user function each claimed WGSL name belongs to. */
  private readonly owners = new Map<string, string>();

  constructor(
    private readonly defined: ReadonlyMap<string, UserFunction>,
    private readonly names: NameTable,
  ) {}

  call(name: string, argTypes: readonly DType[]): { readonly name: string; readonly signature: FunctionSignature } {
    const fn = this.defined.get(name);
    if (!fn)
      throw new InternalError(
        `the call of '${name}' carries a result dtype, but the program has no function '${name}'`,
      );
    const signature = fn.signature(argTypes);
    const impl = fn.implementation(WGSL_FUNCTION_DIALECTS, signature);
    if (!impl) throw missingImplementation(name, WGSL_FUNCTION_DIALECTS);
    const owner = this.owners.get(impl.name);
    if (owner !== undefined && owner !== name) {
      throw new LoomError(
        `functions '${owner}' and '${name}' are both called '${impl.name}' in WGSL, which has no overloads: give them different names`,
      );
    }
    if (owner === undefined) {
      if (!this.names.claim(impl.name)) {
        throw new LoomError(
          `function '${name}' is called '${impl.name}' in WGSL, a name WGSL or the module uses already: choose another`,
        );
      }
      this.owners.set(impl.name, name);
    }
    if (impl.preamble !== undefined) this.preambles.add(impl.preamble);
    return { name: impl.name, signature };
  }
}
