/**
 * @loom/elementwise — pointwise kernels over strided tensors, with PyTorch's
 * broadcasting, type promotion and out= semantics (FlagGems' pointwise_dynamic).
 *
 * @module @loom/elementwise
 */
export { pointwise, type PointwiseFunction, type PointwisePlan, type PointwiseArgument } from './pointwise.ts';
export type { PointwiseOptions, PromotionSpec, ScalarTypeSpec } from './options.ts';
export type { OutputArguments } from './arguments.ts';
export { Tensor, tensor, empty, contiguousStrides, type TensorOptions } from './tensor.ts';
export { Storage } from './storage.ts';
export { clone, contiguous } from './copy.ts';
export { TENSOR_DTYPES, isComplex, componentDType, type TensorDType, type ComplexDType } from './dtypes.ts';
export {
  PROMOTION_METHODS,
  promoteTypes,
  elementwiseDTypes,
  resultDType,
  computationDType,
  canCast,
  DEFAULT_FLOAT,
  type PromotionMethod,
  type PromotionOperand,
  type PromotedDTypes,
  type ScalarKind,
  type ComplexScalar,
} from './promotion.ts';
export { broadcastShapes } from './broadcast.ts';
export { defaultDevice, supportsDType, unsupportedDType } from './devices.ts';
// the float16 and bfloat16 codecs are core's, offered here too for tensors' users
export { bfloat16Bits, bfloat16Value, float16Bits, float16Value, roundToBfloat16, roundToFloat16 } from '@loom/core';
export { readPayload, type Payload, type PayloadSource } from './payload.ts';
export type { Scalar, TensorData } from './host.ts';

/** Marker functions a payload may call on complex values (their meaning is the kernel's; in plain JS they are placeholders). */
export { real, imag, conj, complex } from './complex-markers.ts';
