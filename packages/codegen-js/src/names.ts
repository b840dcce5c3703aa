/**
 * JavaScript identifiers for Loom names.
 *
 * Loom names are checked identifiers (see @loom/core's names.ts), but a kernel may well
 * call an array `new`, `Math` or `loom`, and the generated code must neither fail to
 * parse nor shadow the globals and helpers it relies on. Such names get a `$` appended
 * (`new` → `new$`). Loom names never contain `$`, so the mapping is one-to-one without a
 * table, and every other name is printed as it is.
 *
 * The code runs on the host through `new Function`: a name that is not an identifier
 * never gets this far (core checks every name where it enters and again before code is
 * generated), and `jsName` refuses one all the same rather than print it.
 */
import { checkInternalName } from '@loom/core';

/** The parameters every kernel function receives before its own: group and local ids per axis. */
export const WORK_ITEM_PARAMS = ['gid0', 'gid1', 'gid2', 'lid0', 'lid1', 'lid2'] as const;

/** The parameter through which generated code reaches the runtime helpers (`loom.floorMod`). */
export const HELPERS_PARAM = 'loom';

const KEYWORDS = [
  'await',
  'break',
  'case',
  'catch',
  'class',
  'const',
  'continue',
  'debugger',
  'default',
  'delete',
  'do',
  'else',
  'enum',
  'export',
  'extends',
  'false',
  'finally',
  'for',
  'function',
  'if',
  'import',
  'in',
  'instanceof',
  'new',
  'null',
  'return',
  'super',
  'switch',
  'this',
  'throw',
  'true',
  'try',
  'typeof',
  'var',
  'void',
  'while',
  'with',
  'yield',
  // reserved in strict mode, which the generated code uses
  'let',
  'static',
  'implements',
  'interface',
  'package',
  'private',
  'protected',
  'public',
  'arguments',
  'eval',
];

/** Globals the generated code refers to, which a kernel's names must not shadow. */
const GLOBALS = [
  'Math',
  'Number',
  'BigInt',
  'Object',
  'NaN',
  'Infinity',
  'undefined',
  'Int8Array',
  'Uint8Array',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'BigInt64Array',
  'BigUint64Array',
  'Float32Array',
  'Float64Array',
];

const RESERVED = new Set<string>([...KEYWORDS, ...GLOBALS, ...WORK_ITEM_PARAMS, HELPERS_PARAM]);

/** Whether JavaScript cannot use `name` as it is (a keyword, or a name the generated code relies on). */
export function isReservedInJs(name: string): boolean {
  return RESERVED.has(name);
}

/** The JavaScript spelling of a Loom name. */
export function jsName(name: string): string {
  checkInternalName(name, 'a name in the generated JavaScript');
  return RESERVED.has(name) ? `${name}$` : name;
}
