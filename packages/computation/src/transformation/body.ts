/**
 * Reading a transformation's body: Loom's instruction language, with the four accesses of
 * Reikna's transformations as calls.
 *
 *   <> i1 = loadSame(in1)                      a local value (`<float32> t = ...` converts)
 *   <> i2 = loadIdx(in2, 99 - idx0) * param    loadIdx(param, index...): another element
 *   storeSame(out1, i1)                        store at the index the caller asked for
 *   if idx0 < 80                               if / elif / else / end: guarded statements
 *     storeIdx(out2, idx0, i2)                 storeIdx(param, index..., value)
 *   end
 *
 * `idx0`, `idx1`, ... are the index the kernel asked for, one per axis of the connector.
 * Locals are values, not memory: each use stands for its expression (written out where
 * it is used, so a local defined in an `if` block exists only inside it). What comes out
 * is a list of stores, each with its value and the conditions that guard it, over the
 * names `idxK`, scalar parameters and the calls `loadSame(p)` / `loadIdx(p, ...)`.
 */
import { LoomError, expr, parseExpression, isDType, type Expr, type SourceSpan } from '@loom/core';

export interface BodyStore {
  readonly param: string;
  /** `storeSame`: at the caller's index; otherwise `indices`. */
  readonly same: boolean;
  readonly indices: readonly Expr[];
  readonly value: Expr;
  /** All must hold for the store to happen (the enclosing `if` branches). */
  readonly guards: readonly Expr[];
  readonly span: SourceSpan;
}

export interface Body {
  readonly stores: readonly BodyStore[];
  readonly text: string;
}

export const LOAD_SAME = 'loadSame';
export const LOAD_IDX = 'loadIdx';
const STORE_SAME = 'storeSame';
const STORE_IDX = 'storeIdx';
export const ACCESS_NAMES: readonly string[] = [LOAD_SAME, LOAD_IDX, STORE_SAME, STORE_IDX];

/** `idx0`, `idx1`, ...: the names of the caller's index. */
export const INDEX_NAME = /^idx(\d+)$/;
export const indexName = (axis: number): string => `idx${axis}`;

interface Block {
  /** The current branch's condition, the previous branches' negated. */
  guards: Expr[];
  /** The conditions of the branches so far (for `elif`/`else`). */
  previous: Expr[];
  /** Locals defined in this block. */
  readonly locals: Map<string, Expr>;
  readonly span: SourceSpan;
}

/**
 * Reads `text`; `what` names the transformation in messages. `check` sees every expression
 * as written (before locals are substituted), with its line, to report a wrong name there.
 */
export function readBody(
  text: string,
  what: string,
  check: (e: Expr, span: SourceSpan, locals: ReadonlySet<string>) => void,
): Body {
  if (typeof text !== 'string') throw new LoomError(`${what}: the body must be a string of statements`);
  const stores: BodyStore[] = [];
  const blocks: Block[] = [{ guards: [], previous: [], locals: new Map(), span: { text, start: 0, end: 1 } }];
  const guards = () => blocks.flatMap((b) => b.guards);
  const lookup = (name: string) => {
    for (let k = blocks.length - 1; k >= 0; k--) if (blocks[k].locals.has(name)) return blocks[k].locals.get(name);
    return undefined;
  };
  // locals stand for their values: substitute them in as each expression is read
  const visible = () => new Set(blocks.flatMap((b) => [...b.locals.keys()]));
  const read = (source: string, offset: number): Expr => {
    const e = parseExpression(source, { source: text, offset });
    check(e, { text, start: offset, end: offset + source.length }, visible());
    const locals = new Map<string, Expr>();
    for (const name of expr.freeVariables(e)) {
      const value = lookup(name);
      if (value !== undefined) locals.set(name, value);
    }
    return locals.size ? expr.substitute(e, locals) : e;
  };

  let offset = 0;
  for (const rawLine of text.split('\n')) {
    const lineStart = offset;
    offset += rawLine.length + 1;
    const line = rawLine.includes('#') ? rawLine.slice(0, rawLine.indexOf('#')) : rawLine;
    const trimmed = line.trim();
    if (trimmed === '') continue;
    const start = lineStart + line.indexOf(trimmed);
    const span: SourceSpan = { text, start, end: start + trimmed.length };

    const keyword = /^(if|elif|else|end)\b/.exec(trimmed)?.[1];
    if (keyword === 'if') {
      const condition = read(trimmed.slice(2), start + 2);
      blocks.push({ guards: [condition], previous: [condition], locals: new Map(), span });
    } else if (keyword === 'elif' || keyword === 'else') {
      const block = blocks[blocks.length - 1];
      if (blocks.length === 1) throw new LoomError(`${what}: '${keyword}' without an 'if'`, span);
      const negated = block.previous.map((c) => expr.not(c));
      if (keyword === 'elif') {
        const condition = read(trimmed.slice(4), start + 4);
        block.guards = [...negated, condition];
        block.previous = [...block.previous, condition];
      } else {
        if (trimmed !== 'else') throw new LoomError(`${what}: 'else' takes no condition (use 'elif')`, span);
        block.guards = negated;
      }
      block.locals.clear();
    } else if (keyword === 'end') {
      if (blocks.length === 1) throw new LoomError(`${what}: 'end' without an 'if'`, span);
      if (trimmed !== 'end') throw new LoomError(`${what}: nothing may follow 'end' on its line`, span);
      blocks.pop();
    } else if (/^(storeSame|storeIdx)\s*\(/.test(trimmed)) {
      stores.push(readStore(read(trimmed, start), guards(), span, what));
    } else {
      const local = /^(<([A-Za-z0-9_]*)>\s*)?([A-Za-z_]\w*)\s*=(?!=)/.exec(trimmed);
      if (!local) {
        throw new LoomError(
          `${what}: a statement is 'name = value', 'storeSame(param, value)', 'storeIdx(param, index..., value)' or if/elif/else/end`,
          span,
        );
      }
      const [head, , dtype, name] = local;
      if (dtype && !isDType(dtype)) throw new LoomError(`${what}: unknown dtype '<${dtype}>'`, span);
      if (INDEX_NAME.test(name) || ACCESS_NAMES.includes(name))
        throw new LoomError(
          `${what}: '${name}' cannot name a local value (it is the caller's index or an access)`,
          span,
        );
      const value = read(trimmed.slice(head.length), start + head.length);
      blocks[blocks.length - 1].locals.set(name, dtype ? expr.cast(dtype, value) : value);
    }
  }
  if (blocks.length > 1) throw new LoomError(`${what}: this 'if' has no 'end'`, blocks[blocks.length - 1].span);
  return { stores, text };
}

function readStore(e: Expr, guards: readonly Expr[], span: SourceSpan, what: string): BodyStore {
  if (e.kind !== 'call' || (e.fn !== STORE_SAME && e.fn !== STORE_IDX)) {
    throw new LoomError(`${what}: a store is one call of storeSame or storeIdx, alone on its line`, span);
  }
  const [target, ...rest] = e.args;
  if (target?.kind !== 'var')
    throw new LoomError(`${what}: ${e.fn}'s first argument names the parameter to store to`, span);
  const same = e.fn === STORE_SAME;
  if (same && rest.length !== 1)
    throw new LoomError(`${what}: storeSame(param, value) takes the parameter and the value`, span);
  if (!same && rest.length < 1) throw new LoomError(`${what}: storeIdx(param, index..., value) needs a value`, span);
  return { param: target.name, same, indices: rest.slice(0, -1), value: rest[rest.length - 1], guards, span };
}

/** The loads in `e`: `loadSame(p)` and `loadIdx(p, ...)`, with the parameter each reads. */
export function loadsIn(e: Expr): { param: string; same: boolean; indices: readonly Expr[]; node: Expr }[] {
  const out: { param: string; same: boolean; indices: readonly Expr[]; node: Expr }[] = [];
  expr.walk(e, (x) => {
    if (x.kind === 'call' && (x.fn === LOAD_SAME || x.fn === LOAD_IDX)) {
      const target = x.args[0];
      out.push({
        param: target?.kind === 'var' ? target.name : '',
        same: x.fn === LOAD_SAME,
        indices: x.args.slice(1),
        node: x,
      });
    }
  });
  return out;
}

/** A span under the first whole word `word` of `span`'s text, or `span`. */
export function wordIn(span: SourceSpan, word: string): SourceSpan {
  const m = new RegExp(`\\b${word.replace(/\W/g, '')}\\b`).exec(span.text.slice(span.start, span.end));
  return m ? { text: span.text, start: span.start + m.index, end: span.start + m.index + word.length } : span;
}
