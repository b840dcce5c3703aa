/**
 * User functions: a kernel may call a function Loom does not know, once it has been
 * registered with its signature and an implementation for each target (loopy's
 * `register_callable`, with a `ScalarCallable` per target):
 *
 *     const sigmoid = defineFunction({
 *       name: 'sigmoid',
 *       signature: { args: ['float32'], result: 'float32' },
 *       opencl: { name: 'my_sigmoid', preamble: 'inline float my_sigmoid(float x) { return 1.0f / (1.0f + exp(-x)); }' },
 *       wgsl: { name: 'my_sigmoid', preamble: 'fn my_sigmoid(x: f32) -> f32 { return 1.0 / (1.0 + exp(-x)); }' },
 *       js: (x) => 1 / (1 + Math.exp(-x)),
 *     });
 *     knl = registerFunction(knl, sigmoid); // or registerFunction(sigmoid) for every kernel
 *
 * - The signature is fixed, or a rule from the arguments' dtypes to a signature (a generic
 *   function): type inference goes through it, and the arguments are converted to its
 *   argument dtypes, as a cast converts them.
 * - An implementation is code, by design; it comes in as an object of the TypeScript API,
 *   never from kernel text. It is keyed by its language (a dialect: `opencl`, `cuda`, `c`,
 *   `wgsl`, `js`), and a target reads the dialects it states (`Target.functionDialects`), so
 *   that the C-family targets may share one `c` implementation. For all but `js` it is the
 *   name to call and the preamble that defines it (emitted once per program, however many
 *   calls); for the CPU device a
 *   JavaScript function, called with the arguments in their JavaScript representation
 *   (numbers; bigints for 64-bit integers) and whose result is converted to the result dtype.
 *   Either may depend on the signature (a function of it).
 * - Every name given here is checked (names.ts): the function's name, and the names its
 *   implementations are called by.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { isComplex, isDType, type DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { checkName, showName } from '../names.ts';
import { isReductionName, reductionNames } from '../reduction/registry.ts';
import { SUBGROUP_FUNCTIONS } from '../expr/subgroup-functions.ts';
import { ATOMIC_FUNCTIONS } from '../expr/atomic-functions.ts';

/** What a function's spec may say; any other key is an error. */
const USER_FUNCTION_SPEC_KEYS = optionKeys<UserFunctionSpec>()([
  'c',
  'cuda',
  'js',
  'name',
  'opencl',
  'signature',
  'wgsl',
]);

/**
 * The languages a user function's implementations are written in, which are `defineFunction`'s
 * keys: a target states which it reads (`Target.functionDialects`), most specific first, so that
 * C-family targets can share one `c` implementation and still take one of their own.
 */
export const FUNCTION_DIALECTS = ['opencl', 'cuda', 'c', 'wgsl', 'js'] as const;

/** A language of user functions' implementations: a key of `defineFunction`'s spec. */
export type FunctionDialect = (typeof FUNCTION_DIALECTS)[number];

/** The dialects whose implementation is code in the target's language (`{ name, preamble }`); `js`'s is a JavaScript function. */
export type SourceDialect = Exclude<FunctionDialect, 'js'>;

/** Each dialect's language, as messages name it, and what an implementation in it is. */
const DIALECTS: Readonly<Record<FunctionDialect, { readonly language: string; readonly source: boolean }>> = {
  opencl: { language: 'OpenCL C', source: true },
  cuda: { language: 'CUDA C++', source: true },
  c: { language: 'C', source: true },
  wgsl: { language: 'WGSL', source: true },
  js: { language: 'JavaScript', source: false },
};

const isSourceDialect = (d: FunctionDialect): d is SourceDialect => DIALECTS[d].source;
const SOURCE_DIALECTS: readonly SourceDialect[] = FUNCTION_DIALECTS.filter(isSourceDialect);

/** One signature of a user function: argument dtypes and result dtype. */
export interface FunctionSignature {
  /** The dtypes of the arguments, in order. */
  readonly args: readonly DType[];
  /**
   * The dtype of the result, or `'void'`: the function returns nothing and is called for its side
   * effect, as an instruction of its own (`f(x[i])` on its own line; loopy's call with no assignees).
   */
  readonly result: DType | 'void';
}

/** A function of OpenCL C, CUDA, C or WGSL: called by `name`, defined by `preamble` (emitted once per program). */
export interface TargetFunction {
  /** The name the generated code calls. */
  readonly name: string;
  /** The definition, emitted once before the kernels of a program that calls it. */
  readonly preamble?: string;
}

/**
 * A JavaScript implementation: numbers in and out (bigints for int64/uint64, 0/1 for bool); what
 * one of a void signature returns is ignored.
 * Its parameters are `any` so that `(x) => ...` reads its argument as a number without a
 * type, and `(x: bigint) => ...` is accepted for a 64-bit signature.
 */
// biome-ignore lint/suspicious/noExplicitAny: a JS implementation reads its arguments as numbers without annotations
export type JsFunction = (...args: any[]) => number | bigint | boolean | void;

type PerSignature<T> = T | ((signature: FunctionSignature) => T);

/** What `defineFunction` takes: a function's name, signatures and its body in each target's language. */
export interface UserFunctionSpec {
  /** The name kernels call it by; it must not be a reduction or a form of the language (`if`, `lid`); a math function's name overrides it. */
  readonly name: string;
  /** The signature, or the signature for the arguments' dtypes (throw a LoomError to refuse them). */
  readonly signature: FunctionSignature | ((args: readonly DType[]) => FunctionSignature);
  /** The OpenCL C implementation, or a function of the signature giving it. */
  readonly opencl?: PerSignature<TargetFunction>;
  /** The CUDA implementation (a `__device__` function), or a function of the signature giving it. */
  readonly cuda?: PerSignature<TargetFunction>;
  /**
   * C code that the C-family targets which read the `c` dialect share (`Target.functionDialects`),
   * where they have no implementation of their own; or a function of the signature giving it.
   */
  readonly c?: PerSignature<TargetFunction>;
  /** The WGSL implementation, or a function of the signature giving it. */
  readonly wgsl?: PerSignature<TargetFunction>;
  /** The JavaScript implementation (the CPU device), or one per signature. */
  readonly js?:
    | JsFunction
    | {
        /**
         * The implementation for one signature (a plain function would be taken for the
         * implementation itself, so a per-signature one is wrapped in this object).
         */
        readonly perSignature: (signature: FunctionSignature) => JsFunction;
      };
}

/** A checked user function (`defineFunction`). */
export interface UserFunction {
  /** Tells a user function apart. */
  readonly kind: 'user-function';
  /** The name kernels call it by. */
  readonly name: string;
  /** The signature of a call with arguments of these dtypes; a LoomError when they are refused. */
  signature(args: readonly DType[]): FunctionSignature;
  /**
   * The implementation in a dialect ('opencl', 'c', 'wgsl', ...), or in the first of a list of
   * them that has one (a target's `functionDialects`), with its names checked; undefined when
   * there is none.
   */
  implementation(
    dialects: SourceDialect | readonly FunctionDialect[],
    signature: FunctionSignature,
  ): TargetFunction | undefined;
  /** The JavaScript implementation, or undefined. */
  javascript(signature: FunctionSignature): JsFunction | undefined;
}

/**
 * Names the expression language gives a meaning of its own, which a user function cannot take. A math function
 * (`log2`, `sin`) is not among them: a user function of its name overrides it in the kernels
 * it is registered on, as loopy's `register_callable` does (`test_register_function_lookup`).
 */
const builtIn = (): Set<string> =>
  new Set([
    ...reductionNames(),
    ...Object.keys(SUBGROUP_FUNCTIONS),
    ...Object.keys(ATOMIC_FUNCTIONS),
    'if',
    'gid',
    'lid',
    'truediv',
  ]);

/** Defines a user function kernels can call (loopy's callables), registered on a kernel with `registerFunction`. */
export function defineFunction(spec: UserFunctionSpec): UserFunction {
  if (typeof spec !== 'object' || spec === null)
    throw new LoomError('defineFunction: expected { name, signature, opencl?, cuda?, c?, wgsl?, js? }');
  checkOptionKeys('defineFunction', spec, USER_FUNCTION_SPEC_KEYS);
  const name = checkName(spec.name, 'defineFunction: name');
  if (isReductionName(name)) {
    throw new LoomError(
      `defineFunction: '${name}' is the name of a reduction (built in, or added by registerReduction); a function cannot shadow it: choose another name`,
    );
  }
  if (builtIn().has(name) || isDType(name))
    throw new LoomError(`defineFunction: '${name}' is a built-in of the expression language and cannot be redefined`);
  const where = `function '${name}'`;
  const fixed = typeof spec.signature === 'function' ? undefined : checkSignature(spec.signature, where);
  const rule = typeof spec.signature === 'function' ? spec.signature : undefined;
  if (!fixed && !rule) throw new LoomError(`${where}: a signature ({ args, result }) or a rule giving one is required`);
  for (const dialect of SOURCE_DIALECTS) {
    const impl = spec[dialect];
    if (impl !== undefined && typeof impl !== 'function') checkTargetFunction(impl, `${where} (${dialect})`);
  }
  const js = spec.js;
  if (js !== undefined && typeof js !== 'function' && typeof js?.perSignature !== 'function') {
    throw new LoomError(`${where}: js must be a function, or { perSignature: (signature) => function }`);
  }
  return Object.freeze({
    kind: 'user-function' as const,
    name,
    signature(args: readonly DType[]): FunctionSignature {
      if (fixed) {
        if (args.length !== fixed.args.length) {
          throw new LoomError(
            `${where} takes ${fixed.args.length} argument${fixed.args.length === 1 ? '' : 's'}, got ${args.length}`,
          );
        }
        return fixed;
      }
      const made = checkSignature(rule!(args), where);
      if (made.args.length !== args.length)
        throw new LoomError(
          `${where}: its signature rule gave ${made.args.length} argument dtypes for ${args.length} arguments`,
        );
      return made;
    },
    implementation(
      dialects: SourceDialect | readonly FunctionDialect[],
      signature: FunctionSignature,
    ): TargetFunction | undefined {
      for (const dialect of typeof dialects === 'string' ? [dialects] : dialects) {
        const impl = isSourceDialect(dialect) ? spec[dialect] : undefined;
        if (impl !== undefined)
          return checkTargetFunction(typeof impl === 'function' ? impl(signature) : impl, `${where} (${dialect})`);
      }
      return undefined;
    },
    javascript(signature: FunctionSignature): JsFunction | undefined {
      if (js === undefined) return undefined;
      const f = typeof js === 'function' ? js : js.perSignature(signature);
      if (typeof f !== 'function') throw new LoomError(`${where}: js.perSignature must return a function`);
      return f;
    },
  });
}

function checkSignature(signature: FunctionSignature, where: string): FunctionSignature {
  if (typeof signature !== 'object' || signature === null || !Array.isArray(signature.args)) {
    throw new LoomError(`${where}: a signature is { args: [dtype, ...], result: dtype }`);
  }
  for (const t of [...signature.args, signature.result]) {
    if (t === 'void' && t === signature.result) continue;
    if (typeof t !== 'string' || !isDType(t))
      throw new LoomError(
        `${where}: ${showName(t)} is not a dtype${t === 'void' ? ' (only a result may be void)' : ''}`,
      );
    if (isComplex(t))
      throw new LoomError(
        `${where}: complex dtypes (${t}) in a user function's signature are not supported; pass the parts`,
      );
  }
  return Object.freeze({ args: Object.freeze([...signature.args]), result: signature.result });
}

function checkTargetFunction(impl: TargetFunction, where: string): TargetFunction {
  if (typeof impl !== 'object' || impl === null)
    throw new LoomError(`${where}: an implementation is { name, preamble? }`);
  const name = checkName(impl.name, `${where}: the name its code is called by`);
  if (impl.preamble !== undefined && typeof impl.preamble !== 'string')
    throw new LoomError(`${where}: the preamble must be a string of code`);
  return Object.freeze(impl.preamble === undefined ? { name } : { name, preamble: impl.preamble });
}

/** Functions every kernel can call (`registerFunction(fn)`): a name is registered once. */
const GLOBAL = new Map<string, UserFunction>();

export function registerGlobally(fn: UserFunction): void {
  refuseReductionName(fn);
  const known = GLOBAL.get(fn.name);
  if (known && known !== fn) {
    throw new LoomError(
      `function '${fn.name}' is registered already (globally registered functions cannot change: compiled kernels use them)`,
    );
  }
  GLOBAL.set(fn.name, fn);
}

/**
 * A function defined before a reduction of the same name was registered would be shadowed by
 * it (a call `name(i, e)` reads as the reduction): refused when the function is registered.
 */
export function refuseReductionName(fn: UserFunction): void {
  if (isReductionName(fn.name)) {
    throw new LoomError(
      `function '${fn.name}' cannot be registered: the reduction '${fn.name}' (registerReduction) has that name, and would shadow it; rename the function`,
    );
  }
}

export function globalFunction(name: string): UserFunction | undefined {
  return GLOBAL.get(name);
}

export function isUserFunction(value: unknown): value is UserFunction {
  return typeof value === 'object' && value !== null && (value as UserFunction).kind === 'user-function';
}

/**
 * The error for a call of `name` on a target that finds no implementation of it in its dialects:
 * what to give `defineFunction` so that it has one.
 */
export function missingImplementation(name: string, dialects: readonly FunctionDialect[]): LoomError {
  if (dialects.length === 0)
    return new LoomError(
      `function '${name}' cannot be called here: this target reads no user function's implementation`,
    );
  const keys = dialects.map((d) => (isSourceDialect(d) ? `${d}: { name, preamble }` : `${d}: a function`));
  const languages = [...new Set(dialects.map((d) => DIALECTS[d].language))].join(' or ');
  return new LoomError(
    `function '${name}' has no ${languages} implementation (give defineFunction ${keys.join(', or ')})`,
  );
}
