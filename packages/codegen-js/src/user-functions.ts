/**
 * Calls of user functions (`defineFunction`) in generated JavaScript: the function the user
 * gave for the call's signature, reached as `loom.user[key]` (one key per function and
 * signature), wrapped on the host so that its result is in the representation of the result
 * dtype, converted as a cast converts (`toRepresentation`): a float32 result rounded, an int32
 * one truncated and saturated, a bool 0 or 1. A void function's return value is ignored.
 */
import { LoomError, type DType, type FunctionSignature, type UserFunction } from '@loom/core';
import { toRepresentation } from './runtime-helpers.ts';

export type HostFunction = (...args: (number | bigint)[]) => number | bigint | undefined;

/** The user functions a program calls, keyed as the code reaches them. */
export class UserCalls {
  readonly functions = new Map<string, HostFunction>();

  constructor(private readonly defined: ReadonlyMap<string, UserFunction>) {}

  /** The key for calling `name` with arguments of `argTypes`, and the signature the call is made with. */
  key(name: string, argTypes: readonly DType[]): { key: string; signature: FunctionSignature } {
    const fn = this.defined.get(name);
    if (!fn) throw new LoomError(`the program calls '${name}', which is no user function of it`);
    const signature = fn.signature(argTypes);
    const key = `${name}(${signature.args.join(', ')})`;
    if (!this.functions.has(key)) {
      const f = fn.javascript(signature) as ((...args: unknown[]) => unknown) | undefined;
      if (!f)
        throw new LoomError(
          `function '${name}' has no JavaScript implementation, which the CPU device runs (give defineFunction a js function)`,
        );
      const result = signature.result;
      this.functions.set(key, (...args) => {
        const value = f(...args);
        // a void function is called for its side effect: what it returns is dropped, as C drops it
        if (result === 'void') return undefined;
        if (typeof value !== 'number' && typeof value !== 'bigint' && typeof value !== 'boolean') {
          throw new LoomError(`function '${name}' returned ${typeof value}, not a number`);
        }
        // a JavaScript number is a double, whole or not: into an integer dtype it converts as a
        // float does, truncated and saturated (3e9 into int32 is 2147483647, not a wrapped -1294967296)
        return toRepresentation(value, result, typeof value === 'number' ? 'float64' : undefined);
      });
    }
    return { key, signature };
  }
}
