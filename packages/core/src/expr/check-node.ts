/**
 * Expressions built by hand: an API that takes expression nodes from its caller (a
 * reduction's neutral element or combining rule, say) cannot trust that they are what the
 * constructors of nodes.ts make. A node of an unknown kind, a `null` operand or an `int`
 * that is not an integer would otherwise surface later as a TypeError deep in a pass, or as
 * a wrong result. `checkExpressionNode` checks every node's shape once, where the value comes
 * in, and then the bounds the parser's output is held to (limits.ts), so that what passes
 * is as good as what `parseExpression` returns.
 */
import { isDType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { NAME_PATTERN } from '../names.ts';
import { checkExpressionBounds } from './limits.ts';
import type { Expr } from './nodes.ts';

const BINARY_OPS = new Set(['+', '-', '*', '/', '//', '%', '**', '&', '|', '^', '<<', '>>']);
const COMPARE_OPS = new Set(['==', '!=', '<', '<=', '>', '>=']);
const LOGICAL_OPS = new Set(['and', 'or']);

/**
 * `value` as an expression, when it is a well-formed tree of expression nodes; a LoomError that
 * starts with `where` and names the bad node (by its path from the root, `left.args[1]`) otherwise.
 * Iterative, and each shared node is checked once: safe on anything, however deep or cyclic.
 */
export function checkExpressionNode(value: unknown, where: string): Expr {
  const checked = new Set<unknown>();
  const onPath = new Set<unknown>();
  // explicit stack: `leave` entries take a node off the current path once its children are done
  const stack: { node: unknown; path: string; leave?: true }[] = [{ node: value, path: '' }];
  while (stack.length > 0) {
    const { node, path, leave } = stack.pop()!;
    if (leave) {
      onPath.delete(node);
      checked.add(node);
      continue;
    }
    if (onPath.has(node)) throw new LoomError(`${where}: the expression contains itself (at ${path || 'its root'})`);
    if (checked.has(node)) continue;
    const kids = nodeChildren(
      node,
      (what) =>
        new LoomError(
          `${where}: ${path ? `at ${path}, ` : ''}${what} (build nodes with the constructors of @loom/core's expr, or give a text)`,
        ),
    );
    onPath.add(node);
    stack.push({ node, path, leave: true });
    for (const [field, child] of kids) stack.push({ node: child, path: path ? `${path}.${field}` : field });
  }
  const e = value as Expr;
  checkExpressionBounds(e, where);
  return e;
}

type Fail = (what: string) => LoomError;

/** The children of `node` with their field names, once its own fields are checked. */
function nodeChildren(node: unknown, fail: Fail): [string, unknown][] {
  if (typeof node !== 'object' || node === null || Array.isArray(node))
    throw fail(`${show(node)} is not an expression node`);
  const n = node as Record<string, unknown>;
  const kind = n.kind;
  const operand = (): [string, unknown][] => [['operand', n.operand]];
  const list = (field: string, minimum = 0): [string, unknown][] => {
    const items = n[field];
    if (!Array.isArray(items) || items.length < minimum)
      throw fail(
        `a '${String(kind)}' node needs ${field}: an array of ${minimum ? 'at least one ' : ''}expression${minimum ? '' : 's'}`,
      );
    return items.map((item, k) => [`${field}[${k}]`, item]);
  };
  const name = (field: string) => {
    if (typeof n[field] !== 'string' || !NAME_PATTERN.test(n[field] as string))
      throw fail(`a '${String(kind)}' node's ${field} ${show(n[field])} is not a name`);
  };
  const op = (ops: Set<string>) => {
    if (typeof n.op !== 'string' || !ops.has(n.op))
      throw fail(`a '${String(kind)}' node's op ${show(n.op)} is not one of ${[...ops].join(' ')}`);
  };
  const number = (ok: boolean, what: string) => {
    if (!ok) throw fail(`a '${String(kind)}' node's value ${show(n.value)} is not ${what}`);
  };
  switch (kind) {
    case 'int':
      number(Number.isSafeInteger(n.value), 'a safe integer');
      return [];
    case 'float':
      number(typeof n.value === 'number', 'a number');
      if (n.dtype !== undefined && n.dtype !== 'float32' && n.dtype !== 'float64')
        throw fail(`a 'float' node's dtype ${show(n.dtype)} is not float32 or float64`);
      return [];
    case 'imag':
      number(typeof n.value === 'number', 'a number');
      if (n.dtype !== undefined && n.dtype !== 'complex64' && n.dtype !== 'complex128')
        throw fail(`an 'imag' node's dtype ${show(n.dtype)} is not complex64 or complex128`);
      return [];
    case 'bool':
      number(typeof n.value === 'boolean', 'true or false');
      return [];
    case 'var':
      name('name');
      return [];
    case 'subscript':
      name('array');
      if (n.linear !== undefined && n.linear !== true)
        throw fail(`a 'subscript' node's linear is true or absent, not ${show(n.linear)}`);
      return list('indices');
    case 'neg':
    case 'bitnot':
    case 'not':
      return operand();
    case 'cast':
      if (typeof n.dtype !== 'string' || !isDType(n.dtype))
        throw fail(`a 'cast' node's dtype ${show(n.dtype)} is not a dtype`);
      return operand();
    case 'binary':
    case 'compare':
    case 'logical':
      op(kind === 'binary' ? BINARY_OPS : kind === 'compare' ? COMPARE_OPS : LOGICAL_OPS);
      return [
        ['left', n.left],
        ['right', n.right],
      ];
    case 'if':
      return [
        ['condition', n.condition],
        ['then', n.then],
        ['otherwise', n.otherwise],
      ];
    case 'call':
      name('fn');
      if (n.tag !== undefined) name('tag');
      if (n.dtype !== undefined && (typeof n.dtype !== 'string' || !isDType(n.dtype)))
        throw fail(`a 'call' node's dtype ${show(n.dtype)} is not a dtype`);
      return list('args');
    case 'reduce': {
      if (typeof n.op !== 'string' || n.op === '')
        throw fail(`a 'reduce' node's op ${show(n.op)} is not the name of a reduction`);
      if (
        !Array.isArray(n.inames) ||
        n.inames.length === 0 ||
        n.inames.some((i) => typeof i !== 'string' || !NAME_PATTERN.test(i))
      ) {
        throw fail(`a 'reduce' node's inames ${show(n.inames)} are not a list of names`);
      }
      if (typeof n.simultaneous !== 'boolean')
        throw fail(`a 'reduce' node's simultaneous is true or false, not ${show(n.simultaneous)}`);
      return list('operands', 1);
    }
    default:
      throw fail(`${show(node)} is not an expression node (its kind ${show(kind)} is none of Loom's)`);
  }
}

/** A short, safe rendering of a bad value for a message. */
function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v !== 'object' || v === null) return String(v);
  if (Array.isArray(v)) return `an array of ${v.length}`;
  try {
    const text = JSON.stringify(v);
    return text === undefined ? 'an object' : text.length > 60 ? `${text.slice(0, 60)}...` : text;
  } catch {
    return 'an object'; // cyclic
  }
}
