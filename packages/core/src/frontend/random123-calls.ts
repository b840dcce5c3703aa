/**
 * loopy's Random123 functions (loopy/library/random123.py): `philox4x32(ctr, key)`,
 * `threefry2x64_f64(ctr, key)`, ... for Philox and Threefry of 2 or 4 words of 32 or 64 bits.
 * Each takes a counter and a key (vectors: `make_uint4(...)`, `<uint4>` temporaries) and gives
 * two values: the bijection's output (the words themselves; with `_f32`, floats in [0, 1] from
 * each word times 2^-32; with `_f64`, doubles from 64 bits per lane), and the counter to use
 * next (the first word incremented, carrying into the next ones, as loopy's `_bump`):
 *
 *     <> real, ctr = philox4x32_f32(ctr, key2)
 *
 * makeKernel writes such a call out as scalar instructions before vectors become lanes: the
 * lanes of the counter and the key, the rounds (core's random123Rounds, which
 * @loom/computation's bijections share), and the two results made with vector constructors, so
 * that every target computes it. The call's id stays the first result's; what depends on it
 * depends on both results. Philox's key has 2 lanes and Threefry's 4 (loopy's); the first
 * `keyWords` are the key.
 */
import { LoomError } from '../errors.ts';
import { parseExpression } from '../expr/index.ts';
import { int, subscript, variable, type Expr } from '../expr/nodes.ts';
import type { DType } from '../dtypes.ts';
import { random123KeyWords, random123Rounds, wordConstant, type Random123Spec } from '../functions/random123.ts';
import { suffixedNames } from '../kernel/rename.ts';
import type { ParsedInstruction } from './parse-instructions.ts';

const FUNCTION = /^(philox|threefry)(2|4)x(32|64)(_f32|_f64)?$/;

/** `parsed` with each call of a Random123 function written out (see the file's comment). */
export function expandRandom123Calls(parsed: readonly ParsedInstruction[]): ParsedInstruction[] {
  if (!parsed.some((p) => random123Call(p) !== undefined)) return [...parsed];
  const taken = new Set(parsed.flatMap((p) => (p.id === undefined ? [] : [p.id])));
  const fresh = suffixedNames(taken);
  const resultIds = new Map<string, string[]>();
  let calls = 0;
  const expanded = parsed.flatMap((p) => {
    const found = random123Call(p);
    if (!found) return [p];
    const { spec, suffix, fn } = found;
    const expression = p.expression as Extract<Expr, { kind: 'call' }>;
    const assignees = p.assignees ?? [];
    if (expression.args.length !== 2 || assignees.length !== 2)
      throw new LoomError(
        `${fn}(ctr, key) takes a counter and a key and gives two values: 'value, ctr = ${fn}(ctr, key)'`,
        p.span,
      );
    const prefix = `r123_${calls++}`;
    const inames = writersInames(parsed, expression.args, p);
    const t = spec.bits === 32 ? 'uint32' : 'uint64';
    const out: ParsedInstruction[] = [];
    const reads: string[] = [];
    const assign = (name: string, value: string | Expr, deps: readonly string[] = [], dtype: DType = t) => {
      const id = fresh(`${prefix}_insn`);
      out.push({
        ...p,
        id,
        assignees: [variable(name)],
        expression: typeof value === 'string' ? parseExpression(value) : value,
        temporaries: [{ dtype }],
        deps,
        ...(inames ? { inames } : {}),
      });
      return id;
    };
    // the lanes of the counter and the key, read after what the call depends on
    const [ctr, key] = expression.args;
    const c = Array.from({ length: spec.words }, (_, w) => `${prefix}_c${w}`);
    const k = Array.from({ length: random123KeyWords(spec) }, (_, w) => `${prefix}_k${w}`);
    c.forEach((name, w) => reads.push(assign(name, laneOf(ctr, w, fn), p.deps)));
    k.forEach((name, w) => reads.push(assign(name, laneOf(key, w, fn), p.deps)));
    const bump = (words: readonly string[], tag: string) => {
      const next = words.map((_, w) => `${prefix}_${tag}${w}`);
      words.forEach((word, w) => {
        if (w === 0) assign(next[0], `${word} + ${wordConstant(1n, t)}`);
        else if (w >= 3) assign(next[w], word);
        else {
          const carry = next
            .slice(0, w)
            .map((n) => `${n} == ${wordConstant(0n, t)}`)
            .join(' and ');
          assign(next[w], `${word} + if(${carry}, ${wordConstant(1n, t)}, ${wordConstant(0n, t)})`);
        }
      });
      return next;
    };
    const rounds = (counter: readonly string[], tag: string) => {
      const { assignments, output } = random123Rounds(spec, k, counter, `${prefix}_${tag}`);
      for (const a of assignments) assign(a.name, a.value, [], a.dtype);
      return output;
    };
    const first = rounds(c, 'a');
    let next = bump(c, 'n');
    const lanes = (fnName: string, values: readonly string[]) => `${fnName}(${values.join(', ')})`;
    const W = spec.words;
    let value: string;
    if (suffix === '') value = lanes(`make_${spec.bits === 32 ? 'uint' : 'ulong'}${W}`, first);
    else if (suffix === '_f32')
      value = lanes(
        `make_float${W}`,
        first.map((o) => `float32(${o}) * ${2 ** -32}f`),
      );
    else if (spec.bits === 64)
      value = lanes(
        `make_double${W}`,
        first.map((o) => `float64(${o}) * ${2 ** -64}d`),
      );
    else {
      // 32-bit words: a second output's words fill each double's low bits
      const second = rounds(next, 'b');
      next = bump(next, 'm');
      value = lanes(
        `make_double${W}`,
        first.map((o, w) => `float64(${o}) * ${2 ** -32}d + float64(${second[w]}) * ${2 ** -64}d`),
      );
    }
    const valueId = p.id ?? fresh(`${prefix}_value`);
    const ctrId = fresh(`${prefix}_ctr`);
    if (p.id !== undefined) resultIds.set(p.id, [valueId, ctrId]);
    // the counter is overwritten once every lane of it was read
    for (const [id, assignee, text, k2] of [
      [valueId, assignees[0], value, 0],
      [ctrId, assignees[1], lanes(`make_${spec.bits === 32 ? 'uint' : 'ulong'}${W}`, next), 1],
    ] as const) {
      out.push({
        ...p,
        id,
        assignees: [assignee],
        expression: parseExpression(text),
        temporaries: p.temporaries ? [p.temporaries[k2]] : undefined,
        deps: [...p.deps, ...reads],
        ...(inames ? { inames } : {}),
      });
    }
    return out;
  });
  if (resultIds.size === 0) return expanded;
  return expanded.map((p) => ({ ...p, deps: p.deps.flatMap((d) => resultIds.get(d) ?? [d]) }));
}

/**
 * The loops of the call's parts: the call's own `inames=`, and those its counter and key are
 * written in where their writers say so (`<> key2 = make_uint2(i, 7) {inames=i}`). The parts
 * read temporaries only they write, which makeKernel's inference (loopy's) cannot place: the
 * call as one instruction took them from the counter's and key's writers, itself among them.
 */
function writersInames(parsed: readonly ParsedInstruction[], args: readonly Expr[], p: ParsedInstruction) {
  const names = new Set(p.inames?.names ?? []);
  for (const arg of args) {
    const name = arg.kind === 'var' ? arg.name : arg.kind === 'subscript' ? arg.array : undefined;
    for (const w of parsed)
      if (
        w !== p &&
        w.assignees?.some((a) => (a.kind === 'var' ? a.name : a.kind === 'subscript' ? a.array : '') === name)
      )
        for (const n of w.inames?.names ?? []) names.add(n);
  }
  return names.size ? { names: [...names], additive: p.inames?.additive ?? true } : p.inames;
}

/** The Random123 function `p` calls, if it does. */
function random123Call(p: ParsedInstruction) {
  if (p.kind !== 'assign' || p.expression?.kind !== 'call') return undefined;
  const m = FUNCTION.exec(p.expression.fn);
  if (!m) return undefined;
  const spec: Random123Spec = {
    name: m[1] as 'philox' | 'threefry',
    words: Number(m[2]) as 2 | 4,
    bits: Number(m[3]) as 32 | 64,
    rounds: m[1] === 'philox' ? 10 : 20,
  };
  return { spec, suffix: m[4] ?? '', fn: p.expression.fn };
}

/** Lane `w` of a vector argument as written: a vector name, a vector element, or a constructor. */
function laneOf(e: Expr, w: number, fn: string): Expr {
  if (e.kind === 'var') return subscript(e.name, [int(w)]);
  if (e.kind === 'subscript' && !e.linear) return subscript(e.array, [...e.indices, int(w)], false, e.tag);
  if (e.kind === 'call' && e.fn.startsWith('make_') && w < e.args.length) return e.args[w];
  throw new LoomError(
    `${fn}: its counter and key are vectors (a name, an element, or make_uint4(...)), not '${e.kind}'`,
  );
}
