/**
 * Calls of user functions in the C printer: the implementation for this language, its name
 * claimed once per program (C has no overloads), its preamble recorded, the arguments
 * converted to the dtypes of the signature it is called with.
 */
import { InternalError, LoomError, missingImplementation, type Expr } from '@loom/core';
import type { CExpressionPrinter } from './expressions.ts';
import { call, type Printed } from './precedence.ts';

/** A call of a user function: its implementation's name in this language, the arguments in its signature's dtypes. */
export function printUserCall(printer: CExpressionPrinter, e: Extract<Expr, { kind: 'call' }>): Printed {
  const fn = printer.functions.get(e.fn);
  if (!fn)
    throw new InternalError(`the call of '${e.fn}' carries a result dtype, but the program has no function '${e.fn}'`);
  const signature = fn.signature(e.args.map((a) => printer.typeOfExpr(a)));
  const { language, functionDialects } = printer.dialect;
  const impl = fn.implementation(functionDialects, signature);
  if (!impl) throw missingImplementation(e.fn, functionDialects);
  // as the WGSL target claims the name (codegen-wgsl's user-functions.ts): a keyword, type or
  // built-in function of the language, or a helper of this printer, would not compile or would
  // silently call something else
  if (printer.dialect.isReserved(impl.name)) {
    throw new LoomError(
      `function '${e.fn}' is called '${impl.name}' in ${language}, a keyword, type or built-in function of ${language} (or a name Loom's ${language.replace(/ C$/, '')} code uses): choose another`,
    );
  }
  if (printer.kernelNames.has(impl.name)) {
    throw new LoomError(
      `function '${e.fn}' is called '${impl.name}' in ${language}, which the kernel also uses as a name: rename one of them`,
    );
  }
  const owner = printer.functionOwners.get(impl.name);
  if (owner !== undefined && owner !== e.fn) {
    throw new LoomError(
      `functions '${owner}' and '${e.fn}' are both called '${impl.name}' in ${language}, which has no overloads: give them different names`,
    );
  }
  printer.functionOwners.set(impl.name, e.fn);
  if (impl.preamble !== undefined) printer.preambles.add(impl.preamble);
  return call(
    impl.name,
    e.args.map((a, k) => printer.print(a, signature.args[k])),
  );
}
