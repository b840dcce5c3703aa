/**
 * A small, independent reader of the expressions our targets print (OpenCL C, WGSL,
 * JavaScript), to check that the printed text means the tree it was printed from.
 *
 * It is a precedence-climbing parser driven by each language's own operator table, not by
 * the printers' tables, and it tokenizes by maximal munch as the real compilers do, so a
 * glued `--x`, `a - -b` written as `a--b`, a `//` or `/*` that would start a comment are
 * read as what they are and rejected. For WGSL it also enforces the grammar's refusals
 * to mix operators without parentheses (`a && b || c`, `a < b < c`, `a & b + c`).
 */

export type Node =
  | { kind: 'num'; text: string; paren?: boolean }
  | { kind: 'name'; text: string; paren?: boolean }
  | { kind: 'call'; fn: string; args: Node[]; paren?: boolean }
  | { kind: 'index'; base: Node; index: Node; paren?: boolean }
  | { kind: 'prefix'; op: string; operand: Node; paren?: boolean }
  | { kind: 'cast'; type: string; operand: Node; paren?: boolean }
  | { kind: 'binary'; op: string; left: Node; right: Node; paren?: boolean }
  | { kind: 'ternary'; condition: Node; then: Node; otherwise: Node; paren?: boolean };

export interface Grammar {
  readonly name: string;
  /** Binary operators and their precedence (higher binds tighter); all left-associative. */
  readonly binary: Readonly<Record<string, number>>;
  readonly prefix: readonly string[];
  /** Precedence of `c ? a : b` (right-associative), where the language has it. */
  readonly ternary?: number;
  /** C's casts `(float) x`: the type names that may appear in them. */
  readonly castTypes?: ReadonlySet<string>;
  /** Tokens that parse as something else than the printer meant (decrements, comments). */
  readonly forbidden: readonly string[];
  /** A further check of each binary node (WGSL's rules on mixing operators). */
  readonly check?: (node: Extract<Node, { kind: 'binary' }>) => void;
}

const C_LIKE_FORBIDDEN = ['--', '++', '//', '/*', '*/'];

export const openclGrammar: Grammar = {
  name: 'OpenCL C',
  binary: {
    '||': 2,
    '&&': 3,
    '|': 4,
    '^': 5,
    '&': 6,
    '==': 7,
    '!=': 7,
    '<': 8,
    '<=': 8,
    '>': 8,
    '>=': 8,
    '<<': 9,
    '>>': 9,
    '+': 10,
    '-': 10,
    '*': 11,
    '/': 11,
    '%': 11,
  },
  prefix: ['-', '+', '!', '~'],
  ternary: 1,
  castTypes: new Set([
    'char',
    'uchar',
    'short',
    'ushort',
    'int',
    'uint',
    'long',
    'ulong',
    'half',
    'float',
    'double',
    'bool',
  ]),
  forbidden: C_LIKE_FORBIDDEN,
};

export const javascriptGrammar: Grammar = {
  name: 'JavaScript',
  binary: {
    '||': 4,
    '&&': 5,
    '|': 6,
    '^': 7,
    '&': 8,
    '==': 9,
    '!=': 9,
    '===': 9,
    '!==': 9,
    '<': 10,
    '<=': 10,
    '>': 10,
    '>=': 10,
    '<<': 11,
    '>>': 11,
    '>>>': 11,
    '+': 12,
    '-': 12,
    '*': 13,
    '/': 13,
    '%': 13,
  },
  prefix: ['-', '+', '!', '~'],
  ternary: 3,
  forbidden: [...C_LIKE_FORBIDDEN, '**'], // `**` is never printed: `-a ** b` is a syntax error
};

const RELATIONAL = new Set(['<', '<=', '>', '>=', '==', '!=']);
const LOGICAL = new Set(['&&', '||']);
const BITWISE = new Set(['&', '|', '^', '<<', '>>']);

export const wgslGrammar: Grammar = {
  name: 'WGSL',
  // `&&` and `||` share a level: WGSL's grammar never lets them meet without parentheses
  binary: {
    '||': 1,
    '&&': 1,
    '==': 2,
    '!=': 2,
    '<': 2,
    '<=': 2,
    '>': 2,
    '>=': 2,
    '&': 3,
    '|': 3,
    '^': 3,
    '<<': 3,
    '>>': 3,
    '+': 4,
    '-': 4,
    '*': 5,
    '/': 5,
    '%': 5,
  },
  prefix: ['-', '!', '~'],
  forbidden: C_LIKE_FORBIDDEN,
  check(node) {
    const bare = (x: Node) => (x.kind === 'binary' && !x.paren ? x.op : undefined);
    const l = bare(node.left);
    const r = bare(node.right);
    const refuse = (why: string) => {
      throw new Error(`WGSL needs parentheses: ${why}`);
    };
    if (LOGICAL.has(node.op)) {
      for (const side of [l, r]) {
        if (side && ((LOGICAL.has(side) && side !== node.op) || BITWISE.has(side)))
          refuse(`'${side}' inside '${node.op}'`);
      }
    } else if (RELATIONAL.has(node.op)) {
      for (const side of [l, r])
        if (side && (RELATIONAL.has(side) || LOGICAL.has(side) || BITWISE.has(side)))
          refuse(`'${side}' inside '${node.op}'`);
    } else if (BITWISE.has(node.op)) {
      // operands are unary expressions; only `a & b & c` chains (on the left)
      if (r || (l && (l !== node.op || node.op === '<<' || node.op === '>>'))) refuse(`an operand of '${node.op}'`);
    } else if ((l && BITWISE.has(l)) || (r && BITWISE.has(r))) {
      refuse(`a bitwise operand of '${node.op}'`);
    }
  },
};

const OPERATORS = [
  '>>>',
  '===',
  '!==',
  '>>',
  '<<',
  '<=',
  '>=',
  '==',
  '!=',
  '&&',
  '||',
  '--',
  '++',
  '//',
  '/*',
  '*/',
  '**',
  '+',
  '-',
  '*',
  '/',
  '%',
  '<',
  '>',
  '!',
  '~',
  '&',
  '|',
  '^',
  '?',
  ':',
  '(',
  ')',
  '[',
  ']',
  ',',
];
const NUMBER = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[a-zA-Z]*/;
const NAME = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let pos = 0;
  while (pos < text.length) {
    const rest = text.slice(pos);
    const space = /^\s+/.exec(rest);
    const match = space ?? NUMBER.exec(rest) ?? NAME.exec(rest);
    const token = match ? match[0] : OPERATORS.find((op) => rest.startsWith(op));
    if (token === undefined) throw new Error(`unexpected character '${rest[0]}' in ${text}`);
    if (!space) tokens.push(token);
    pos += token.length;
  }
  return tokens;
}

/** Reads `text` by `grammar`, throwing on anything the language would read otherwise. */
export function parseAs(grammar: Grammar, text: string): Node {
  const tokens = tokenize(text);
  for (const t of tokens)
    if (grammar.forbidden.includes(t)) throw new Error(`${grammar.name} reads '${t}' as one token in ${text}`);
  let pos = 0;
  const peek = () => tokens[pos];
  const expect = (t: string) => {
    if (tokens[pos] !== t) throw new Error(`expected '${t}' at token ${pos} ('${tokens[pos]}') of ${text}`);
    pos++;
  };

  function expression(min: number): Node {
    let left = unary();
    for (;;) {
      const op = peek();
      if (op === '?' && grammar.ternary !== undefined && grammar.ternary >= min) {
        pos++;
        const then = expression(0);
        expect(':');
        const otherwise = expression(grammar.ternary); // right-associative
        left = { kind: 'ternary', condition: left, then, otherwise };
        continue;
      }
      const p = op === undefined ? undefined : grammar.binary[op];
      if (p === undefined || p < min) return left;
      pos++;
      const right = expression(p + 1);
      const node = { kind: 'binary' as const, op, left, right };
      grammar.check?.(node);
      left = node;
    }
  }

  function unary(): Node {
    const t = peek();
    if (t !== undefined && grammar.prefix.includes(t)) {
      pos++;
      return { kind: 'prefix', op: t, operand: unary() };
    }
    if (t === '(' && grammar.castTypes?.has(tokens[pos + 1]) && tokens[pos + 2] === ')') {
      pos += 3;
      return { kind: 'cast', type: tokens[pos - 2], operand: unary() };
    }
    return postfix(primary());
  }

  function primary(): Node {
    const t = tokens[pos++];
    if (t === undefined) throw new Error(`unexpected end of ${text}`);
    if (t === '(') {
      const inner = expression(0);
      expect(')');
      return { ...inner, paren: true };
    }
    if (NUMBER.test(t)) return { kind: 'num', text: t };
    if (!NAME.test(t)) throw new Error(`unexpected '${t}' in ${text}`);
    if (peek() !== '(') return { kind: 'name', text: t };
    pos++;
    const args: Node[] = [];
    while (peek() !== ')') {
      args.push(expression(0));
      if (peek() === ',') pos++;
    }
    pos++;
    return { kind: 'call', fn: t, args };
  }

  function postfix(base: Node): Node {
    while (peek() === '[') {
      pos++;
      const index = expression(0);
      expect(']');
      base = { kind: 'index', base, index };
    }
    return base;
  }

  const tree = expression(0);
  if (pos !== tokens.length) throw new Error(`unexpected '${tokens[pos]}' after the expression in ${text}`);
  return tree;
}
