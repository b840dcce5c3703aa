/** The integer-set library: loop domains, their bounds, and static values over them. */
export { BasicSet } from './basic-set.ts';
export type { Bound, Constraint } from './constraint.ts';
export { eq, ge } from './constraint.ts';
export { type PieceTerm, staticMax, staticMin } from './static-value.ts';
