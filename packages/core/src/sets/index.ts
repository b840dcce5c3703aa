/** The integer-set library: loop domains, their bounds, and static values over them. */
export { BasicSet } from './basic-set.ts';
export type { Bound, Constraint } from './constraint.ts';
export { eq, ge } from './constraint.ts';
export { type PieceTerm, staticMax, staticMaxQuasiAffine, staticMin, staticMinCandidates } from './static-value.ts';
export { card } from './card.ts';
export { PwQPolynomial, type ParamValues, type QPiece } from './pw-qpolynomial.ts';
export { QPolynomial } from './quasi-polynomial.ts';
export { Rational } from './rational.ts';
