/**
 * Signatures of kernels written as literal strings, read by the type-level parsers:
 *
 *   kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]')
 *     a:   an array it reads         required, any dtype
 *     out: an array it writes        returned (may be passed, to be written in place)
 *     n:   a domain parameter        optional: the core finds it from the sizes of the arrays
 *
 * Domain parameters are optional when the kernel reads some array (whose size usually
 * settles them: `run` says so when it does not); with no input array they are required.
 * Other scalars the kernel reads (`alpha` in `out[i] = alpha*a[i]`) are required values.
 * Dtypes are `'auto'`: literal text does not say them; `.dtypes()` or `.args()` does.
 */
import type { InamesOfDomains, ParamsOfDomains } from '../parse/domain.ts';
import type { Arrays, InputArrays, InstructionFacts, OutputArrays, ScalarValues } from '../parse/instructions.ts';
import type { IsLiteral } from '../parse/scan.ts';
import type { LooseSignature, Simplify } from './signature.ts';

type AllLiteral<X> = IsLiteral<X extends readonly unknown[] ? X[number] : X> extends true ? true : false;

type FromFacts<I extends string, P extends string, E extends string> = Simplify<
  {
    readonly [K in Arrays<I, E>]: {
      readonly kind: 'array';
      readonly dtype: 'auto';
      readonly required: K extends InputArrays<I, E> ? true : false;
      readonly output: K extends OutputArrays<I, E> ? true : false;
    };
  } & {
    readonly [K in Exclude<P, Arrays<I, E>>]: {
      readonly kind: 'value';
      readonly dtype: 'int32';
      readonly required: [InputArrays<I, E>] extends [never] ? true : false;
      readonly output: false;
    };
  } & {
    readonly [K in ScalarValues<I, P, E>]: {
      readonly kind: 'value';
      readonly dtype: 'auto';
      readonly required: true;
      readonly output: false;
    };
  }
>;

/** The signature of `kernel(domains, instructions)` when both are literal strings; else loose. */
export type InferredSignature<D, X> = [AllLiteral<D>, AllLiteral<X>] extends [true, true]
  ? FromFacts<InamesOfDomains<D>, ParamsOfDomains<D>, InstructionFacts<X>>
  : LooseSignature;
