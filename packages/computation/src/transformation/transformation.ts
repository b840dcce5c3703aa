/**
 * `transformation({ params, body, connectors })`: Reikna's transformations in Loom.
 *
 * A transformation is a small elementwise program that runs in place of one memory access
 * of a kernel: attached to an argument the kernel reads, its body computes the value the
 * kernel gets (from other arrays and scalars); attached to one the kernel writes, it gets
 * the value the kernel stores and writes whatever it likes wherever it likes. The
 * parameter it is attached through is its connector; a connector is touched only through
 * `loadSame`/`storeSame`, so the access it replaces keeps its meaning.
 *
 *   const tr = transformation({
 *     params: [
 *       { name: 'out1', dtype: 'float32', shape: [100], role: 'o' },
 *       { name: 'out2', dtype: 'float32', shape: [80], role: 'o' },
 *       { name: 'in1', dtype: 'float32', shape: [100], role: 'i' },
 *       { name: 'in2', dtype: 'float32', shape: [100], role: 'i' },
 *       { name: 'param', dtype: 'float32', role: 's' },
 *     ],
 *     body: `...`,                        // body.ts says what a body may say
 *     connectors: ['in1', 'out1'],
 *   });
 *
 * The checks here are the ones that need no kernel; `attach` (attach.ts) checks the rest
 * against the argument it is attached to.
 */
import { checkOptionKeys, LoomError, expr, optionKeys, type Expr, type LoopKernel, type SourceSpan } from '@loom/core';
import { attach, type AttachMapping } from './attach.ts';
import { ACCESS_NAMES, INDEX_NAME, LOAD_IDX, LOAD_SAME, loadsIn, readBody, wordIn, type Body } from './body.ts';
import { checkParams, isArrayRole, type ParamSpec } from './params.ts';

/** The names of a parameter list's arrays (what may be a connector). */
export type ArrayParamNames<P extends readonly ParamSpec[]> = Extract<P[number], { readonly role: 'i' | 'o' }>['name'];

/** What `transformation` takes: parameters, body and connectors. */
export interface TransformationSpec<P extends readonly ParamSpec[], C extends string> {
  /** Its parameters: the connectors and any other arrays and scalars it uses. */
  readonly params: P;
  /** The body, in the transformation language (body.ts says what it may say). */
  readonly body: string;
  /**
   * The parameters it may be attached through; each is checked to qualify (see
   * checkConnector). Default: every array parameter that qualifies.
   */
  readonly connectors?: readonly C[];
  /** For messages. */
  readonly name?: string;
}

/** An elementwise transformation (Reikna's `Transformation`), attached to kernel or computation parameters. */
export class Transformation<P extends readonly ParamSpec[] = readonly ParamSpec[], C extends string = string> {
  /** Its name, for messages. */
  readonly name: string;
  /** Its parameters. */
  readonly params: P;
  /** The parameters it may be attached through. */
  readonly connectors: readonly C[];
  /** The body, read: its loads and stores. */
  readonly body: Body;

  constructor(spec: TransformationSpec<P, C>) {
    this.name = spec.name ?? 'transformation';
    const what = `transformation '${this.name}'`;
    checkParams(spec.params, what);
    for (const p of spec.params) {
      if (INDEX_NAME.test(p.name) || ACCESS_NAMES.includes(p.name))
        throw new LoomError(`${what}: parameter '${p.name}' has the name of the caller's index or of an access`);
    }
    this.params = Object.freeze([...spec.params]) as unknown as P;
    const byName = new Map(spec.params.map((p) => [p.name, p]));
    this.body = readBody(spec.body, what, (e, span, locals) => checkExpression(e, span, locals, byName, what));
    if (spec.connectors !== undefined) {
      this.connectors = Object.freeze([...spec.connectors]);
      for (const c of this.connectors) checkConnector(this, c, what);
    } else {
      // Reikna takes every array (it cannot tell); Loom can, and takes the ones that qualify
      const qualifies = (name: string) => {
        try {
          checkConnector(this, name, what);
          return true;
        } catch (e) {
          if (e instanceof LoomError) return false;
          throw e;
        }
      };
      this.connectors = Object.freeze(
        spec.params.filter((p) => isArrayRole(p.role) && qualifies(p.name)).map((p) => p.name as C),
      );
    }
    Object.freeze(this);
  }

  /** The parameter called `name`, or undefined when the transformation has none. */
  param(name: string): ParamSpec | undefined {
    return this.params.find((p) => p.name === name);
  }

  /**
   * `attach(knl, argName, this, connector, mapping)`, as a method: code that is handed a
   * transformation (the DSL's builder verb `.attach`) fuses it without importing
   * @loom/computation itself, which is an optional peer of @loom/dsl.
   */
  attachTo(knl: LoopKernel, argName: string, connector: string, mapping: AttachMapping = {}): LoopKernel {
    return attach(knl, argName, this as unknown as Transformation, connector, mapping);
  }

  /** Every expression of the body: stores' values, indices and guards. */
  expressions(): Expr[] {
    return this.body.stores.flatMap((s) => [s.value, ...s.indices, ...s.guards]);
  }
}

/** What a transformation's spec may say; any other key is an error. */
const TRANSFORMATION_SPEC_KEYS = optionKeys<TransformationSpec<readonly ParamSpec[], string>>()([
  'body',
  'connectors',
  'name',
  'params',
]);

/** An elementwise transformation from its parameters, body and connectors (Reikna's `Transformation`). */
export function transformation<
  const P extends readonly ParamSpec[],
  const C extends ArrayParamNames<P> = ArrayParamNames<P>,
>(spec: TransformationSpec<P, C>): Transformation<P, C> {
  checkOptionKeys('transformation', spec, TRANSFORMATION_SPEC_KEYS);
  return new Transformation(spec);
}

/**
 * Names in an expression are the caller's index (`idx0`...), scalar parameters and locals;
 * array parameters appear only as what a load or store accesses.
 */
function checkExpression(
  e: Expr,
  span: SourceSpan,
  locals: ReadonlySet<string>,
  params: ReadonlyMap<string, ParamSpec>,
  what: string,
): void {
  const visit = (x: Expr, top: boolean): void | boolean => {
    if (x.kind === 'reduce')
      throw new LoomError(
        `${what}: a transformation computes one element; it cannot reduce ('${x.op}')`,
        wordIn(span, x.op),
      );
    if (x.kind === 'subscript') {
      throw new LoomError(
        `${what}: '${x.array}[...]' reads memory directly; use loadIdx(${x.array}, ...) or loadSame(${x.array})`,
        wordIn(span, x.array),
      );
    }
    if (x.kind === 'var' && !INDEX_NAME.test(x.name) && !locals.has(x.name)) {
      const p = params.get(x.name);
      if (!p)
        throw new LoomError(
          `${what}: unknown name '${x.name}' (not a parameter, a local value or the index idx0, idx1, ...)`,
          wordIn(span, x.name),
        );
      if (p.role !== 's')
        throw new LoomError(
          `${what}: '${x.name}' is an array; read it with loadSame(${x.name}) or loadIdx(${x.name}, ...)`,
          wordIn(span, x.name),
        );
    }
    if (x.kind !== 'call' || !ACCESS_NAMES.includes(x.fn)) return undefined;
    const isStore = x.fn.startsWith('store');
    if (isStore && !top)
      throw new LoomError(`${what}: ${x.fn} is a statement of its own, not part of an expression`, wordIn(span, x.fn));
    const target = x.args[0];
    if (target?.kind !== 'var')
      throw new LoomError(`${what}: ${x.fn}'s first argument names a parameter`, wordIn(span, x.fn));
    const p = params.get(target.name);
    if (!p)
      throw new LoomError(
        `${what}: ${x.fn}(${target.name}, ...): no parameter '${target.name}'`,
        wordIn(span, target.name),
      );
    const wanted = isStore ? 'o' : 'i';
    if (p.role !== wanted) {
      const role = p.role === 's' ? 'a scalar' : p.role === 'o' ? 'an output' : 'an input';
      throw new LoomError(
        `${what}: ${x.fn}(${target.name}, ...): '${target.name}' is ${role}; ${isStore ? 'only outputs (role o) are stored' : 'only inputs (role i) are loaded'}`,
        wordIn(span, target.name),
      );
    }
    if (x.fn === LOAD_SAME && x.args.length !== 1)
      throw new LoomError(`${what}: loadSame(${target.name}) takes the parameter alone`, wordIn(span, x.fn));
    if (x.fn === LOAD_IDX && x.args.length < 1)
      throw new LoomError(`${what}: loadIdx(param, index...)`, wordIn(span, x.fn));
    for (const arg of x.args.slice(1)) expr.walk(arg, (y) => visit(y, false));
    return false;
  };
  expr.walk(e, (x) => visit(x, x === e));
}

/**
 * A connector is accessed once, at the caller's index: an output connector is stored by
 * one unconditional `storeSame` (a load must always produce its value), an input connector
 * only read with `loadSame` (what the kernel stored exists at that index alone).
 */
function checkConnector(tr: Transformation, name: string, what: string): void {
  const p = tr.param(name);
  if (!p) throw new LoomError(`${what}: connector '${name}' is not a parameter`);
  if (!isArrayRole(p.role)) throw new LoomError(`${what}: connector '${name}' is a scalar; connectors are arrays`);
  if (p.role === 'o') {
    const stores = tr.body.stores.filter((s) => s.param === name);
    if (stores.length !== 1)
      throw new LoomError(
        `${what}: connector '${name}' must be stored exactly once (storeSame(${name}, value)), not ${stores.length} times`,
      );
    const [store] = stores;
    if (!store.same)
      throw new LoomError(
        `${what}: connector '${name}' is stored with storeIdx; a connector is stored only with storeSame`,
        store.span,
      );
    if (store.guards.length)
      throw new LoomError(
        `${what}: connector '${name}' is stored inside an 'if'; a connector's value must always be stored`,
        store.span,
      );
    return;
  }
  for (const e of tr.expressions()) {
    for (const load of loadsIn(e)) {
      if (load.param === name && !load.same)
        throw new LoomError(
          `${what}: connector '${name}' is read with loadIdx; a connector is read only with loadSame (the kernel's value exists at its own index alone)`,
        );
    }
  }
}
