/**
 * @loom/computation — Reikna's computations and transformations for Loom kernels.
 */
export { transformation, Transformation, type TransformationSpec, type ArrayParamNames } from './transformation/transformation.ts';
export type { ParamSpec, Role, ShapeEntry } from './transformation/params.ts';
export { attach, type AttachMapping } from './transformation/attach.ts';
