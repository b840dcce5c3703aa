/**
 * `makeEinsum('ij,j->i', ['a', 'b'])`: a kernel from numpy's Einstein summation notation
 * (loopy's `make_einsum`). Every subscript letter becomes an iname over `0 <= i < Ni`; letters
 * of the operands missing from the output are summed over; the result is the array `out`.
 * Shapes follow from the accesses as in any `makeKernel` kernel, and dtypes from the data
 * passed at run time.
 */
import { LoomError, type SourceSpan } from '../errors.ts';
import { checkName, showName } from '../names.ts';
import { makeKernel, type MakeKernelOptions } from './make-kernel.ts';
import type { LoopKernel } from '../kernel/model.ts';

/** One subscript of the spec: its letters, each with where it stands in the spec. */
interface Subscripts {
  readonly letters: readonly { readonly letter: string; readonly at: number }[];
  /** Where the subscript starts, for errors about the subscript as a whole. */
  readonly at: number;
}

/**
 * A kernel evaluating `spec` (numpy's einsum subscripts, with the output given after `->`,
 * which loopy requires) on the operands named `argNames`, one per comma-separated subscript.
 * The kernel writes `out`; its name is `einsum{number of indices}to{number of output
 * indices}_kernel` unless `options.name` says otherwise. `options` are `makeKernel`'s.
 * Whitespace in the spec is ignored, as numpy does.
 * ```ts
 * const matmul = makeEinsum('ik,kj->ij', ['a', 'b']);
 * const { out } = await run(matmul, device, { a, b, Ni: 4, Nk: 3, Nj: 5 });
 * ```
 */
export function makeEinsum(spec: string, argNames: readonly string[], options: MakeKernelOptions = {}): LoopKernel {
  const source = einsumSource(spec, argNames);
  return makeKernel(source.domain, source.instruction, undefined, { ...options, name: options.name ?? source.name });
}

/** The text of an einsum's kernel: its domain, its one instruction, its default name. */
export interface EinsumSource {
  /** The loop domain, `{[i, j, k]: 0 <= i < Ni and ...}`. */
  readonly domain: string;
  /** The instruction, `out[i, j] = sum(k, a[i, k]*b[k, j])`. */
  readonly instruction: string;
  /** `einsum{number of indices}to{number of output indices}_kernel`. */
  readonly name: string;
}

/**
 * What `makeEinsum` gives `makeKernel`, the spec and names checked as it checks them: for a
 * front end that makes the kernel its own way (the DSL's `einsum`, whose `.args()` rebuilds it).
 * ```ts
 * einsumSource('ij,j->i', ['a', 'x']).instruction; // 'out[i] = sum(j, a[i, j]*x[j])'
 * ```
 */
export function einsumSource(spec: string, argNames: readonly string[]): EinsumSource {
  if (typeof spec !== 'string') throw new LoomError(`makeEinsum: the spec must be a string, not ${showName(spec)}`);
  const { inputs, output } = parseSpec(spec);
  if (!Array.isArray(argNames) || argNames.length !== inputs.length) {
    const given = Array.isArray(argNames) ? argNames.length : 0;
    throw new LoomError(
      `makeEinsum: the spec has ${inputs.length} operand subscript${inputs.length === 1 ? '' : 's'} but ${given} argument name${given === 1 ? ' was' : 's were'} given (${Array.isArray(argNames) ? argNames.map(showName).join(', ') : showName(argNames)})`,
      span(spec, inputs[Math.min(given, inputs.length - 1)].at),
    );
  }
  const seenOut = new Set<string>();
  for (const { letter, at } of output.letters) {
    if (seenOut.has(letter))
      throw new LoomError(`makeEinsum: output subscript index '${letter}' appears more than once`, span(spec, at));
    seenOut.add(letter);
  }
  const indices = [...new Set([...inputs.flatMap((s) => s.letters.map((l) => l.letter)), ...seenOut])].sort();
  const sumIndices = indices.filter((i) => !seenOut.has(i));
  const reserved = new Map<string, string>([['out', 'the output']]);
  for (const i of indices) {
    reserved.set(i, `subscript index '${i}'`);
    reserved.set(`N${i}`, `the length of index '${i}'`);
  }
  const seenArgs = new Set<string>();
  for (const [k, name] of argNames.entries()) {
    checkName(name, `makeEinsum: argument name ${k}`);
    const clash = reserved.get(name);
    if (clash) throw new LoomError(`makeEinsum: argument name '${name}' is taken by ${clash}; rename the operand`);
    if (seenArgs.has(name)) throw new LoomError(`makeEinsum: argument name '${name}' is given twice`);
    seenArgs.add(name);
  }

  const access = (name: string, s: Subscripts) =>
    s.letters.length === 0 ? name : `${name}[${s.letters.map((l) => l.letter).join(', ')}]`;
  const product = inputs.map((s, k) => access(argNames[k], s)).join('*');
  const rhs =
    sumIndices.length === 0
      ? product
      : `sum(${sumIndices.length === 1 ? sumIndices[0] : `(${sumIndices.join(', ')})`}, ${product})`;
  const bounds = indices.map((i) => `0 <= ${i} < N${i}`).join(' and ');
  return {
    domain: `{[${indices.join(', ')}]: ${bounds}}`,
    instruction: `${access('out', output)} = ${rhs}`,
    name: `einsum${indices.length}to${seenOut.size}_kernel`,
  };
}

const span = (text: string, start: number, end = start + 1): SourceSpan => ({
  text,
  start,
  end: Math.max(end, start + 1),
});

/** The operand subscripts and the output's, each letter checked to be one (a-z, A-Z). */
function parseSpec(spec: string): { inputs: Subscripts[]; output: Subscripts } {
  const arrow = spec.indexOf('->');
  if (arrow < 0)
    throw new LoomError(
      "makeEinsum: the spec has no '->': give the output's subscripts explicitly (e.g. 'ij,j->i')",
      span(spec, 0, spec.length),
    );
  const second = spec.indexOf('->', arrow + 2);
  if (second >= 0) throw new LoomError("makeEinsum: the spec has more than one '->'", span(spec, second, second + 2));
  const inputs: Subscripts[] = [];
  let current: Subscripts['letters'][number][] = [];
  let start = 0;
  for (let k = 0; k < arrow; k++) {
    const c = spec[k];
    if (c === ',') {
      inputs.push({ letters: current, at: start });
      current = [];
      start = k + 1;
    } else if (!/\s/.test(c)) current.push({ letter: letterAt(spec, k), at: k });
  }
  inputs.push({ letters: current, at: start });
  const out: Subscripts['letters'][number][] = [];
  for (let k = arrow + 2; k < spec.length; k++) {
    if (spec[k] === ',')
      throw new LoomError('makeEinsum: the output has one subscript; it cannot hold a comma', span(spec, k));
    if (!/\s/.test(spec[k])) out.push({ letter: letterAt(spec, k), at: k });
  }
  return { inputs, output: { letters: out, at: arrow + 2 } };
}

function letterAt(spec: string, k: number): string {
  const c = spec[k];
  if (/^[A-Za-z]$/.test(c)) return c;
  const what = c === '.' ? "an ellipsis ('...'), which loopy's einsum does not take either" : showName(c);
  throw new LoomError(`makeEinsum: a subscript index is one letter (a-z, A-Z), not ${what}`, span(spec, k));
}
