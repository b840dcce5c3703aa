/**
 * Instructions read at the type level: which names a literal instruction block writes,
 * reads as arrays, reads as scalars, declares as temporaries or defines as rules.
 *
 *   InstructionFacts<'out[i] = 2*a[i]'>
 *     = 'w:out' | 'rs:i' | 'ra:a'
 *
 * Entries: `w:` written (the target of an assignment), `t:` a temporary (`<> t = ...`,
 * `<float32> t[k] = ...`), `r:` a substitution rule (`f(x) := ...`), `ra:` read as an
 * array (`a[...]`), `rs:` read as a scalar. Lines are read one by one: `for`, `end`,
 * `else`, `...` barriers and blank lines say nothing about arguments, `if`/`elif`
 * conditions are reads, `{attributes}` and `# comments` are dropped.
 *
 * This is a deliberately small reader: what it cannot make sense of contributes
 * nothing, and the run-time kernel (built by the core's real parser) stays the
 * authority. `loom typegen` gives exact signatures for kernels this cannot read.
 */
import type { Marked, Scan, SplitList, Trim } from './scan.ts';

type Blank = ' ' | '\t' | '\r';

/**
 * Scanner entries of an expression as reads; calls (functions, reductions, rules) are no
 * arguments, nor is the operation `reduce(op, ...)` names.
 */
type Reads<Text extends string> = AsRead<Scan<WithoutOperations<Text>>>;

/** `reduce(sum, i, e)`, `simul_reduce(segmented(sum), ...)`: the operation's name dropped. */
type WithoutOperations<S extends string, Done extends string = ''> = S extends `${infer Before}reduce(${infer Rest}`
  ? Rest extends `${string},${infer After}`
    ? WithoutOperations<After, `${Done}${Before}reduce(`>
    : `${Done}${S}`
  : `${Done}${S}`;
type AsRead<E extends string> = E extends `a:${infer N}` ? `ra:${N}` : E extends `s:${infer N}` ? `rs:${N}` : never;

/** The lines of a block, as a union (duplicates merge, order does not matter here). */
export type Lines<S extends string, Found extends string = never> = S extends `${infer Line}\n${infer Rest}`
  ? Lines<Rest, Found | Line>
  : Found | S;

export type WithoutComment<L extends string> = L extends `${infer Code}#${string}` ? Code : L;
export type WithoutAttributes<L extends string> = L extends `${infer Code}{${string}` ? Code : L;

type Statement<L extends string> = L extends '' | 'end' | 'else'
  ? never
  : L extends `for${Blank}${string}` | `...${string}`
    ? never
    : L extends `if${Blank}${infer Condition}`
      ? Reads<Condition>
      : L extends `elif${Blank}${infer Condition}`
        ? Reads<Condition>
        : L extends `${infer Head}:=${infer Body}`
          ? Rule<Trim<Head>, Body>
          : L extends `${infer Target}=${infer Value}`
            ? Assignee<Trim<Target>> | Reads<Value>
            : never;

/** The targets of an assignment: one, or several (`v, <> k = argmax(...)`), each read by `Target`. */
type Assignee<T extends string> = Target<Targets<T>>;

/** `out[i, j]`, `s`, `<> t`, `<float32> t[k]`, `[j]: y[i, j]` (a call's result): the name written (or declared) and the index reads. */
type Target<T extends string> = T extends `<${string}>${infer Rest}`
  ? Written<Trim<Rest>, 't'>
  : T extends `[${string}]:${infer Ref}`
    ? Written<Trim<Ref>, 'w'>
    : Written<T, 'w'>;

/** `a, b[i, j]` → `'a' | 'b[i, j]'`: the commas outside brackets separate (one bracket level deep per `x` of `Depth`). */
type Targets<
  S extends string,
  Current extends string = '',
  Depth extends string = '',
  Found extends string = never,
> = S extends `${infer C}${infer Rest}`
  ? C extends '[' | '('
    ? Targets<Rest, `${Current}${C}`, `${Depth}x`, Found>
    : C extends ']' | ')'
      ? Targets<Rest, `${Current}${C}`, Depth extends `x${infer Less}` ? Less : '', Found>
      : C extends ','
        ? Depth extends ''
          ? Targets<Rest, '', '', Found | Trim<Current>>
          : Targets<Rest, `${Current}${C}`, Depth, Found>
        : Targets<Rest, `${Current}${C}`, Depth, Found>
  : Found | Trim<Current>;
type Written<T extends string, M extends string> = T extends `${infer Name}[${infer Indices}`
  ? `${M}:${Trim<Name>}` | Reads<Indices>
  : `${M}:${T}`;

/** `f(x, y) := body`: the rule's own parameters are not names of the kernel. */
type Rule<Head extends string, Body extends string> = Head extends `${infer Name}(${infer Params})`
  ? `r:${Trim<Name>}` | Exclude<Reads<Body>, `${string}:${SplitList<Params>}`>
  : `r:${Head}` | Reads<Body>;

type LineFacts<L extends string> = L extends unknown ? Statement<Trim<WithoutAttributes<WithoutComment<L>>>> : never;

/** All entries of an instruction block (a string, or a list of strings joined by lines). */
export type InstructionFacts<X> = X extends readonly string[]
  ? LineFacts<Lines<X[number]>>
  : X extends string
    ? LineFacts<Lines<X>>
    : never;

/** Words of the expression language that are not names. */
type ExpressionKeywords = 'and' | 'or' | 'not' | 'true' | 'false';

/** What the entries `E` mean for a kernel with inames `I` and domain parameters `P`. */
export type Temporaries<E extends string> = Marked<E, 't'>;
type NotArguments<I extends string, E extends string> = I | Temporaries<E> | Marked<E, 'r'>;
/** Names subscripted anywhere, and names assigned to that are no temporaries (0-d arrays). */
export type Arrays<I extends string, E extends string> = Exclude<Marked<E, 'ra'> | Marked<E, 'w'>, NotArguments<I, E>>;
/** Arrays the kernel reads: the caller must pass them. */
export type InputArrays<I extends string, E extends string> = Extract<Arrays<I, E>, Marked<E, 'ra'> | Marked<E, 'rs'>>;
/** Arrays the kernel writes: `run` returns them. */
export type OutputArrays<I extends string, E extends string> = Exclude<Marked<E, 'w'>, NotArguments<I, E>>;
/** Scalars read that are neither inames, parameters, arrays, temporaries nor rules: value arguments. */
export type ScalarValues<I extends string, P extends string, E extends string> = Exclude<
  Marked<E, 'rs'>,
  NotArguments<I, E> | P | ExpressionKeywords | Arrays<I, E>
>;
