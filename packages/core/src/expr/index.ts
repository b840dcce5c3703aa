/**
 * The expression layer: the IR (`nodes.ts`), reading (`parse.ts`) and printing
 * (`print.ts`) it, traversals (`visit.ts`), analyses (`analysis.ts`) and the affine view
 * with simplification (`affine.ts`, `simplify.ts`).
 */
export * from './nodes.ts';
export { parseExpression, MAX_BRACKET_NESTING, type ParseOptions } from './parse.ts';
export {
  checkExpressionBounds,
  measureExpression,
  MAX_EXPRESSION_DEPTH,
  MAX_EXPRESSION_NODES,
  type ExpressionMeasure,
} from './limits.ts';
export { checkExpressionNode } from './check-node.ts';
export { printExpr, formatFloat, printField } from './print.ts';
export { children, mapChildren, walk, walkScoped, walkGuarded, mapExpr, someExpr } from './visit.ts';
export {
  additiveTerms,
  freeVariables,
  reductionInamesIn,
  arraysAccessed,
  substitute,
  exprEquals,
  isConstant,
} from './analysis.ts';
export { toLinear, fromLinear, foldInteger } from './affine.ts';
export {
  toLinearOverAtoms,
  fromLinearOverAtoms,
  isDivisionByConstant,
  type LinearOverAtoms,
} from './linear-atoms.ts';
export { simplifier, simplify, type SimplifyOptions } from './simplify.ts';
export { isExpressionEqual } from './polynomial.ts';
export {
  complexAdd,
  complexMultiply,
  complexDivide,
  complexEquals,
  complexTruthy,
  complexFunction,
  COMPLEX_FUNCTIONS,
  type ComplexParts,
  type Bind,
} from './complex.ts';
