/**
 * Highlighting modes (CodeMirror stream parsers) for what the playground shows that has no
 * maintained CodeMirror package: Loom's kernel language (ISL sets `{ [i]: 0<=i<n }`,
 * instructions with their `{id=..., dep=...}` options, reductions `sum(k, ...)`) and WGSL.
 * OpenCL C uses legacy-modes' clike, JavaScript lang-javascript (editor.ts).
 */
import type { StreamParser, StringStream } from '@codemirror/language';

/** Words of the kernel language: ISL's, the instruction syntax's, the reductions. */
const LOOM_KEYWORDS = new Set([
  'and',
  'or',
  'not',
  'mod',
  'floor',
  'ceil',
  'exists',
  'for',
  'end',
  'if',
  'else',
  'with',
  'id',
  'dep',
  'tags',
  'inames',
  'nosync',
  'priority',
]);
const LOOM_BUILTINS = new Set([
  'sum',
  'product',
  'max',
  'min',
  'argmax',
  'argmin',
  'sqrt',
  'exp',
  'log',
  'sin',
  'cos',
  'tan',
  'abs',
  'fabs',
  'pow',
  'select',
  'if',
]);
const LOOM_TYPES = /^(float16|float32|float64|int8|int16|int32|int64|uint8|uint16|uint32|uint64|bool)$/;

/** A kernel's domain, instructions, or its printed view. */
export const loomLanguage: StreamParser<null> = {
  name: 'loom',
  startState: () => null,
  token(stream) {
    if (stream.eatSpace()) return null;
    if (stream.match('#') || stream.match('//')) {
      stream.skipToEnd();
      return 'comment';
    }
    if (stream.match(/^\d+(\.\d*)?([eE][+-]?\d+)?f?/)) return 'number';
    if (stream.match(/^<[a-z0-9]+>/)) return 'typeName';
    if (stream.match(/^[A-Za-z_][\w.]*/)) {
      const word = stream.current();
      if (LOOM_TYPES.test(word)) return 'typeName';
      if (LOOM_KEYWORDS.has(word)) return 'keyword';
      if (LOOM_BUILTINS.has(word) && stream.peek() === '(') return 'function(variableName)';
      return stream.peek() === '[' ? 'variableName.special' : 'variableName';
    }
    if (stream.match(/^(<=|>=|==|!=|->|[-+*/%<>=:])/)) return 'operator';
    if (stream.match(/^[{}[\]()]/)) return 'bracket';
    stream.next();
    return null;
  },
};

const WGSL_KEYWORDS = new Set([
  'fn',
  'var',
  'let',
  'const',
  'override',
  'struct',
  'return',
  'if',
  'else',
  'for',
  'while',
  'loop',
  'break',
  'continue',
  'switch',
  'case',
  'default',
  'enable',
  'true',
  'false',
  'discard',
  'alias',
  'continuing',
]); // prettier-ignore
const WGSL_TYPES =
  /^(f16|f32|i32|u32|bool|vec[234][fhiu]?|mat\dx\d[fh]?|array|atomic|ptr|storage|uniform|workgroup|private|function|read|read_write|write)$/;

/** WGSL: attributes `@compute`, its types, numbers with suffixes. */
export const wgslLanguage: StreamParser<{ inComment: boolean }> = {
  name: 'wgsl',
  startState: () => ({ inComment: false }),
  token(stream, state) {
    if (state.inComment) return blockComment(stream, state);
    if (stream.eatSpace()) return null;
    if (stream.match('//')) {
      stream.skipToEnd();
      return 'comment';
    }
    if (stream.match('/*')) {
      state.inComment = true;
      return blockComment(stream, state);
    }
    if (stream.match(/^@[A-Za-z_]\w*/)) return 'meta';
    if (stream.match(/^(0x[0-9a-fA-F.]+(p[+-]?\d+)?|\d+(\.\d*)?([eE][+-]?\d+)?)[fhiu]?/)) return 'number';
    if (stream.match(/^[A-Za-z_]\w*/)) {
      const word = stream.current();
      if (WGSL_KEYWORDS.has(word)) return 'keyword';
      if (WGSL_TYPES.test(word)) return 'typeName';
      return stream.peek() === '(' ? 'function(variableName)' : 'variableName';
    }
    if (stream.match(/^[-+*/%<>=!&|^~]+/)) return 'operator';
    stream.next();
    return null;
  },
};

function blockComment(stream: StringStream, state: { inComment: boolean }): string {
  if (stream.skipTo('*/')) {
    stream.match('*/');
    state.inComment = false;
  } else stream.skipToEnd();
  return 'comment';
}
