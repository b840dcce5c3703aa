import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import {
  add,
  binary,
  bitnot,
  bool,
  call,
  cast,
  compare,
  exprEquals,
  float,
  ifThenElse,
  imag,
  int,
  logical,
  mul,
  neg,
  not,
  parseExpression,
  printExpr,
  reduce,
  sub,
  subscript,
  variable,
  type Expr,
  type ParseOptions,
} from '../packages/core/src/expr/index.ts';
import { LoomError } from '../packages/core/src/errors.ts';

const v = variable;

function parsesTo(text: string, expected: Expr, options?: ParseOptions) {
  const actual = parseExpression(text, options);
  assert.ok(exprEquals(actual, expected), `${text}: got ${printExpr(actual)} (${JSON.stringify(actual)})`);
}

/**
 * `picture` is the error's source line and caret line exactly as rendered (with pointAt's
 * two-space indent), written after a newline for readability.
 */
function rejects(text: string, message: RegExp, picture: string, options?: ParseOptions) {
  let error: unknown;
  try {
    parseExpression(text, options);
  } catch (e) {
    error = e;
  }
  assert.instance(error, LoomError, `${text} should be rejected`);
  const [first, ...rest] = (error as LoomError).message.split('\n');
  assert.match(first, message);
  assert.is(rest.join('\n'), picture.replace(/^\n/, ''));
}

test('the tutorial expressions', () => {
  parsesTo('2*a[i]', mul(int(2), subscript('a', [v('i')])));
  parsesTo('a[i,j] + 1', add(subscript('a', [v('i'), v('j')]), int(1)));
  parsesTo(
    'sum(k, a[i,k]*b[k,j])',
    reduce('sum', ['k'], mul(subscript('a', [v('i'), v('k')]), subscript('b', [v('k'), v('j')]))),
  );
  parsesTo(
    'if(i > 0, a[i-1], 0)',
    ifThenElse(compare('>', v('i'), int(0)), subscript('a', [sub(v('i'), int(1))]), int(0)),
  );
  parsesTo('sqrt(1-a_temp*a_temp)', call('sqrt', [sub(int(1), mul(v('a_temp'), v('a_temp')))]));
  parsesTo('a[16*i_outer + i_inner]', subscript('a', [add(mul(int(16), v('i_outer')), v('i_inner'))]));
  parsesTo('arr[(i + 1) % n]', subscript('arr', [binary('%', add(v('i'), int(1)), v('n'))]));
});

test('integer and float literals are kept apart', () => {
  parsesTo('2', int(2));
  parsesTo('2.0', float(2));
  parsesTo('2.', float(2));
  parsesTo('.5', float(0.5));
  parsesTo('1e3', float(1000));
  parsesTo('1E-3', float(0.001));
  parsesTo('2.5e+2', float(250));
  parsesTo('007', int(7));
  assert.is(parseExpression('2').kind, 'int');
  assert.is(parseExpression('2.0').kind, 'float');
  // A minus on a literal makes a negative literal, as in Python.
  parsesTo('-1', int(-1));
  parsesTo('-2.5', float(-2.5));
  parsesTo('-(1)', neg(int(1)));
  parsesTo('i + -1', add(v('i'), int(-1)));
  parsesTo('true', bool(true));
  parsesTo('false', bool(false));
});

test('arithmetic operators and their precedence', () => {
  parsesTo('a + b*c', add(v('a'), mul(v('b'), v('c'))));
  parsesTo('a - b - c', sub(sub(v('a'), v('b')), v('c')));
  parsesTo('a - (b - c)', sub(v('a'), sub(v('b'), v('c'))));
  parsesTo('a / b', binary('/', v('a'), v('b')));
  parsesTo('a // b', binary('//', v('a'), v('b')));
  parsesTo('a//b//c', binary('//', binary('//', v('a'), v('b')), v('c')));
  parsesTo('7//2', binary('//', int(7), int(2)));
  parsesTo('2.//3', binary('//', float(2), int(3)));
  parsesTo('2./3', binary('/', float(2), int(3)));
  parsesTo('2.*3', mul(float(2), int(3)));
  parsesTo('a % b', binary('%', v('a'), v('b')));
  parsesTo('a*b % c', binary('%', mul(v('a'), v('b')), v('c')));
  parsesTo('a%b', binary('%', v('a'), v('b')));
  parsesTo('50% + 3', binary('%', int(50), int(3))); // as in Python: 50 % (+3)
  parsesTo('a ** b', binary('**', v('a'), v('b')));
  parsesTo('a ** b ** c', binary('**', v('a'), binary('**', v('b'), v('c'))));
  parsesTo('a**b**c', binary('**', v('a'), binary('**', v('b'), v('c'))));
  parsesTo('-a**2', neg(binary('**', v('a'), int(2))));
  parsesTo('a**-2', binary('**', v('a'), int(-2)));
  parsesTo('-a*b', mul(neg(v('a')), v('b')));
  parsesTo('+a', v('a'));
  parsesTo('((a))', v('a'));
});

test("loopy's language: bitwise operators, Python's conditional, sized and complex literals, linear subscripts, tagged calls", () => {
  // Python's (and pymbolic's) precedence: | below ^ below & below shifts below + -, all above comparisons
  parsesTo(
    'a | b ^ c & d << 1 + e',
    binary('|', v('a'), binary('^', v('b'), binary('&', v('c'), binary('<<', v('d'), add(int(1), v('e')))))),
  );
  parsesTo('a & b == c', compare('==', binary('&', v('a'), v('b')), v('c')));
  parsesTo('a >> 2 >> 1', binary('>>', binary('>>', v('a'), int(2)), int(1)));
  parsesTo('~a + 1', add(bitnot(v('a')), int(1)));
  parsesTo('-~a', neg(bitnot(v('a'))));
  parsesTo('a ^ b', binary('^', v('a'), v('b')));
  parsesTo('x if c else y', ifThenElse(v('c'), v('x'), v('y')));
  parsesTo(
    'x if a < b else y if c else z',
    ifThenElse(compare('<', v('a'), v('b')), v('x'), ifThenElse(v('c'), v('y'), v('z'))),
  );
  parsesTo('1 + x if c or d else 2', ifThenElse(logical('or', v('c'), v('d')), add(int(1), v('x')), int(2)));
  parsesTo('f(x if c else y)', call('f', [ifThenElse(v('c'), v('x'), v('y'))]));
  parsesTo('if(c, a, b) if d else e', ifThenElse(v('d'), ifThenElse(v('c'), v('a'), v('b')), v('e')));
  parsesTo('2.0f', float(2, 'float32'));
  parsesTo('5f', float(5, 'float32'));
  parsesTo('0.1f', float(Math.fround(0.1), 'float32'));
  parsesTo('-2.5d', float(-2.5, 'float64'));
  parsesTo('5j', imag(5));
  parsesTo('5jf', imag(5, 'complex64'));
  parsesTo('1.5jd', imag(1.5, 'complex128'));
  parsesTo('a[[i*n + j]]', subscript('a', [add(mul(v('i'), v('n')), v('j'))], true));
  parsesTo('g$two(x) + h(x)', add(call('g', [v('x')], 'two'), call('h', [v('x')])));
  parsesTo('fma(a, b, c)', call('fma', [v('a'), v('b'), v('c')]));
  assert.is(parseExpression('2.0f').kind, 'float');
  assert.is((parseExpression('2.0f') as { dtype?: string }).dtype, 'float32');
});

test('comparisons, logic and conditionals', () => {
  for (const op of ['==', '!=', '<', '<=', '>', '>='] as const) parsesTo(`i ${op} n`, compare(op, v('i'), v('n')));
  parsesTo(
    'a < b and b < c or not d',
    logical('or', logical('and', compare('<', v('a'), v('b')), compare('<', v('b'), v('c'))), not(v('d'))),
  );
  parsesTo('not (i < n)', not(compare('<', v('i'), v('n'))));
  parsesTo('(not a) < b', compare('<', not(v('a')), v('b')));
  // `not` binds more loosely than comparisons and arithmetic, as in Python (mathjs, which
  // Loom once parsed with, reads `(not a) < b`).
  parsesTo('not a < b', not(compare('<', v('a'), v('b'))));
  parsesTo('not j > i', not(compare('>', v('j'), v('i'))));
  parsesTo('not a + 1 < b*2', not(compare('<', add(v('a'), int(1)), mul(v('b'), int(2)))));
  parsesTo('not not a < b', not(not(compare('<', v('a'), v('b')))));
  parsesTo('not a < b and not c', logical('and', not(compare('<', v('a'), v('b'))), not(v('c'))));
  parsesTo('x and not a == b', logical('and', v('x'), not(compare('==', v('a'), v('b')))));
  parsesTo('not -a**2 < 1', not(compare('<', neg(binary('**', v('a'), int(2))), int(1))));
  parsesTo('not a', not(v('a')));
  parsesTo('i + 1 < n', compare('<', add(v('i'), int(1)), v('n')));
  parsesTo('if(c, a, b)', ifThenElse(v('c'), v('a'), v('b')));
  parsesTo('c ? a : b', ifThenElse(v('c'), v('a'), v('b')));
});

test('subscripts, calls and casts', () => {
  parsesTo('a[i, j]', subscript('a', [v('i'), v('j')]));
  parsesTo('a [i]', subscript('a', [v('i')]));
  parsesTo('a[b[i]]', subscript('a', [subscript('b', [v('i')])]));
  parsesTo('sin(x)', call('sin', [v('x')]));
  parsesTo('atan2(y, x)', call('atan2', [v('y'), v('x')]));
  parsesTo('max(a, b, c)', call('max', [v('a'), v('b'), v('c')]));
  parsesTo('floor(x / 2)', call('floor', [binary('/', v('x'), int(2))]));
  // Unknown names are calls too: they may be substitution rules.
  parsesTo('rule(i, j + 1)', call('rule', [v('i'), add(v('j'), int(1))]));
  parsesTo('f()', call('f', []));
  parsesTo('float32(x)', cast('float32', v('x')));
  parsesTo('int32(i) + 1', add(cast('int32', v('i')), int(1)));
});

test('names other math languages treat specially (e, pi, end, mod, in) are plain names', () => {
  parsesTo('i + e + pi', add(add(v('i'), v('e')), v('pi')));
  parsesTo('a[end]', subscript('a', [v('end')]));
  parsesTo('mod + to + in + xor', add(add(add(v('mod'), v('to')), v('in')), v('xor')));
  parsesTo('sum', v('sum'));
  parsesTo('Infinity', v('Infinity'));
});

test('reductions over one and several inames', () => {
  parsesTo('sum(k, a[k])', reduce('sum', ['k'], subscript('a', [v('k')])));
  parsesTo('product(k, a[k])', reduce('product', ['k'], subscript('a', [v('k')])));
  parsesTo('sum((i, j), a[i, j])', reduce('sum', ['i', 'j'], subscript('a', [v('i'), v('j')])));
  parsesTo('sum([i, j], a[i, j])', reduce('sum', ['i', 'j'], subscript('a', [v('i'), v('j')])));
  parsesTo('sum( ( i ,j ) , 1)', reduce('sum', ['i', 'j'], int(1)));
  // sum and product are always reductions, even when the body does not use the iname.
  parsesTo('sum(k, 1.0)', reduce('sum', ['k'], float(1)));
  parsesTo('2*sum(k, x[k]) + 1', add(mul(int(2), reduce('sum', ['k'], subscript('x', [v('k')]))), int(1)));
  parsesTo('sum(k, sum(l, a[k, l]))', reduce('sum', ['k'], reduce('sum', ['l'], subscript('a', [v('k'), v('l')]))));
});

test('max(a, b) is the function, max(k, e) the reduction', () => {
  // Without the kernel's inames: a reduction when the first argument is a name that the
  // second one uses (or a tuple).
  parsesTo('max(a, b)', call('max', [v('a'), v('b')]));
  parsesTo('max(x, a[i])', call('max', [v('x'), subscript('a', [v('i')])]));
  parsesTo('max(k, a[k])', reduce('max', ['k'], subscript('a', [v('k')])));
  parsesTo('min(k, abs(x[k] - y))', reduce('min', ['k'], call('abs', [sub(subscript('x', [v('k')]), v('y'))])));
  parsesTo('max((i, j), a[i, j])', reduce('max', ['i', 'j'], subscript('a', [v('i'), v('j')])));
  parsesTo('max([k], 0)', reduce('max', ['k'], int(0)));
  parsesTo('max(a + 1, a)', call('max', [add(v('a'), int(1)), v('a')]));
  parsesTo('max(a)', call('max', [v('a')]));
  // With the kernel's inames, membership decides.
  const inames = new Set(['i', 'k']);
  parsesTo('max(k, 0)', reduce('max', ['k'], int(0)), { inames });
  parsesTo('max(a, a[k])', call('max', [v('a'), subscript('a', [v('k')])]), { inames });
  parsesTo('max(i, j)', reduce('max', ['i'], v('j')), { inames });
  parsesTo('min(n, i)', call('min', [v('n'), v('i')]), { inames });
});

test('implicit multiplication is a missing operator', () => {
  rejects(
    '2a',
    /missing operator between the number '2' and 'a'/,
    `
  2a
   ^`,
  );
  rejects(
    '2 i',
    /missing operator before 'i'/,
    `
  2 i
    ^`,
  );
  rejects(
    '(a)(b)',
    /missing operator before '\('/,
    `
  (a)(b)
     ^`,
  );
  rejects(
    'a b + c',
    /missing operator before 'b'/,
    `
  a b + c
    ^`,
  );
  rejects(
    'x + 2 pi',
    /missing operator before 'pi'/,
    `
  x + 2 pi
        ^^`,
  );
  rejects(
    '0x1F',
    /missing operator/,
    `
  0x1F
   ^`,
  );
});

test('constructs outside the language are rejected at their token', () => {
  rejects(
    'a[1:3]',
    /ranges/,
    `
  a[1:3]
     ^`,
  );
  rejects(
    'a[:]',
    /ranges/,
    `
  a[:]
    ^`,
  );
  rejects(
    "a'",
    /strings \(and transposes\)/,
    `
  a'
   ^`,
  );
  rejects(
    '"x"',
    /strings/,
    `
  "x"
  ^`,
  );
  rejects(
    'n!',
    /use 'not'/,
    `
  n!
   ^`,
  );
  rejects(
    'x = 1',
    /did you mean '=='/,
    `
  x = 1
    ^`,
  );
  rejects(
    '[1, 2] + 1',
    /tuple is only allowed as the inames of a reduction/,
    `
  [1, 2] + 1
  ^`,
  );
  rejects(
    'a[i][j]',
    /write a\[i, j\]/,
    `
  a[i][j]
      ^`,
  );
  rejects(
    'f(x)[i]',
    /only an array/,
    `
  f(x)[i]
      ^`,
  );
  rejects(
    'a[i](x)',
    /only a function, by its name/,
    `
  a[i](x)
      ^`,
  );
  rejects(
    'a < b < c',
    /chained comparisons/,
    `
  a < b < c
        ^`,
  );
  rejects(
    'a && b',
    /use 'and'/,
    `
  a && b
    ^^`,
  );
  rejects(
    'a & & b',
    /expected a value, found '&'/,
    `
  a & & b
      ^`,
  );
  rejects(
    'x if c',
    /expected 'else'/,
    `
  x if c
        ^`,
  );
  // loopy's tagged array read `G$x[...]` keeps its tag (addPrefetch selects by it) and prints it
  const tagged = parseExpression('G$x[0, e] + G[1, e]');
  assert.equal(printExpr(tagged), 'G$x[0, e] + G[1, e]');
  assert.equal(tagged.kind === 'binary' && tagged.left.kind === 'subscript' && tagged.left.tag, 'x');
  assert.equal(tagged.kind === 'binary' && tagged.right.kind === 'subscript' && tagged.right.tag, undefined);
  rejects(
    'x$t + 1',
    /a tag \('x\$t'\) is only allowed on a call of a substitution rule or on an array read/,
    `
  x$t + 1
  ^^^`,
  );
  // a field follows an element of a struct array (a[i].b), never a bare name
  rejects(
    'a.b',
    /unexpected '\.b' \(a vector component is one of .*; a struct field follows an element of a struct array/,
    `
  a.b
   ^^`,
  );
  rejects(
    'a # comment',
    /unexpected character '#'/,
    `
  a # comment
    ^`,
  );
  rejects(
    'a; b',
    /';' is not allowed/,
    `
  a; b
   ^`,
  );
  // Some languages read these as percentages; for us `%` is modulo only.
  rejects(
    '50 %',
    /syntax error: unexpected end of expression/,
    `
  50 %
      ^`,
  );
  rejects(
    'a - 1% * b',
    /syntax error: expected a value, found '\*'/,
    `
  a - 1% * b
         ^`,
  );
  rejects(
    '99999999999999999999 + 1',
    /too large/,
    `
  99999999999999999999 + 1
  ^^^^^^^^^^^^^^^^^^^^`,
  );
  rejects(
    '   ',
    /empty expression/,
    `
     
  ^^^`,
  );
});

test('function and reduction misuse', () => {
  rejects(
    'sin(a, b)',
    /sin\(\) takes 1 argument, got 2/,
    `
  sin(a, b)
  ^^^`,
  );
  rejects(
    'atan2(y)',
    /atan2\(\) takes 2 arguments, got 1/,
    `
  atan2(y)
  ^^^^^`,
  );
  rejects(
    'max()',
    /at least 1 argument/,
    `
  max()
  ^^^`,
  );
  rejects(
    'if(c, a)',
    /if\(\) takes 3 arguments/,
    `
  if(c, a)
  ^^`,
  );
  rejects(
    'float32(x, y)',
    /float32\(\) takes 1 argument/,
    `
  float32(x, y)
  ^^^^^^^`,
  );
  rejects(
    'sum(k)',
    /sum\(\) takes an iname/,
    `
  sum(k)
  ^^^`,
  );
  rejects(
    'sum(a[i], b)',
    /expected the iname/,
    `
  sum(a[i], b)
      ^`,
  );
  rejects(
    'sum((i, a[i]), b)',
    /expected an iname/,
    `
  sum((i, a[i]), b)
          ^`,
  );
  rejects(
    'sum((i, j, i), a)',
    /iname 'i' is listed twice/,
    `
  sum((i, j, i), a)
             ^`,
  );
  rejects(
    'sum([], a)',
    /at least one iname/,
    `
  sum([], a)
      ^`,
  );
  rejects(
    'f((a, b))',
    /tuple is only allowed/,
    `
  f((a, b))
    ^`,
  );
});

test('syntax errors point at the token at fault, or just past the end', () => {
  rejects(
    'a +',
    /syntax error: unexpected end of expression/,
    `
  a +
     ^`,
  );
  rejects(
    'a + * b',
    /syntax error: expected a value, found '\*'/,
    `
  a + * b
      ^`,
  );
  rejects(
    '(a + b',
    /syntax error: expected '\)', found the end/,
    `
  (a + b
        ^`,
  );
  rejects(
    'a[i, j',
    /syntax error: expected '\]', found the end/,
    `
  a[i, j
        ^`,
  );
  rejects(
    'sum((i, j), e',
    /syntax error: expected '\)'/,
    `
  sum((i, j), e
               ^`,
  );
  rejects(
    'f(a,)',
    /syntax error: expected a value, found '\)'/,
    `
  f(a,)
      ^`,
  );
  rejects(
    'a ** ** b',
    /syntax error/,
    `
  a ** ** b
       ^^`,
  );
  rejects(
    'c ? a',
    /syntax error: expected ':'/,
    `
  c ? a
       ^`,
  );
  rejects(
    '1 2',
    /syntax error: unexpected '2'/,
    `
  1 2
    ^`,
  );
});

test('errors in a slice of a larger source point into that source', () => {
  const source = 'out[i] = 2 a[i] {id=insn}';
  const offset = source.indexOf('2 a');
  const text = source.slice(offset, source.indexOf(' {'));
  rejects(
    text,
    /missing operator before 'a'/,
    `
  out[i] = 2 a[i] {id=insn}
             ^`,
    { source, offset },
  );

  const block = 'a[i] = 1\nb[i] = a[i] +\nc[i] = 0';
  const start = block.indexOf('a[i] +');
  rejects(
    'a[i] +',
    /unexpected end of expression/,
    `
  line 2: b[i] = a[i] +
                       ^`,
    { source: block, offset: start },
  );
});

test('property: any text is read or rejected with a LoomError, never misread', () => {
  // Fragments of the language and of its neighbours, glued together at random: the parser
  // must never fail other than with a LoomError, and what it reads must print back to itself.
  const pieces = [
    'a',
    'i',
    'k',
    'sum',
    'max',
    'if',
    'sin',
    'float32',
    'not',
    'and',
    'or',
    'true',
    'mod',
    'end',
    '2',
    '2.',
    '.5',
    '1e3',
    '+',
    '-',
    '*',
    '/',
    '//',
    '%',
    '**',
    '^',
    '==',
    '<',
    '>=',
    '!=',
    '(',
    ')',
    '[',
    ']',
    ',',
    '?',
    ':',
    ' ',
    '\n',
    '.',
    '!',
    '=',
    '&',
    '0x',
    'e',
    "'",
    '$',
    ';',
    'sum((i,j),',
    'max(k,',
    'a[i,j]',
  ];
  const text = fc.array(fc.constantFrom(...pieces), { maxLength: 12 }).map((p) => p.join(''));
  fc.assert(
    fc.property(text, (t) => {
      let e: Expr;
      try {
        e = parseExpression(t);
      } catch (err) {
        if (!(err instanceof LoomError)) throw err;
        return;
      }
      assert.ok(exprEquals(parseExpression(printExpr(e)), e), t);
    }),
    { numRuns: 5000 },
  );
});

test.run();
