/**
 * @loom/computation — Reikna's computations and transformations for Loom kernels.
 *
 *   transformation({ params, body, connectors })   elementwise pre/post-processing (transformation/)
 *   attach(kernel, arg, tr, connector, mapping)     fused into any Loom kernel's loads or stores
 *   computation({ params, buildPlan })              kernel calls, temporaries, nested computations (computation/)
 *   comp.attach(...), comp.compile(device)          the same on a computation's parameters; a callable
 *
 * @module @loom/computation
 */
export {
  transformation,
  Transformation,
  type TransformationSpec,
  type ArrayParamNames,
} from './transformation/transformation.ts';
export type { ParamSpec, Role, ShapeEntry } from './transformation/params.ts';
export { attach, type AttachMapping } from './transformation/attach.ts';
export { Computation, computation, type ComputationSpec, type CompiledComputation } from './computation/computation.ts';
export type { ConnectOptions } from './computation/tree.ts';
export type { PreparedComputation } from './computation/compiled.ts';
export type { ComputationParam, ComputationRole } from './computation/params.ts';
export {
  ComputationPlan,
  KernelArgument,
  TempArray,
  PersistentArray,
  type PlanValue,
  type KernelLike,
} from './computation/plan.ts';
export { deviceParameters, type DeviceParameters } from './computation/device-parameters.ts';
export type {
  HostArrays,
  HostArrayOf,
  ArrayArgument,
  KernelArgumentsOf,
  ArgumentFor,
  PositionalArguments,
  PreparedArguments,
  NamedArguments,
  Outputs,
  NamedOutputs,
  LooseArgument,
  ScalarArgument,
  Attached,
  AttachableNames,
  MappingFor,
  InitialTree,
  SignatureOf,
  ComputationRegistry,
  RegisteredParams,
} from './computation/typed.ts';

// --- the library ------------------------------------------------------------------------------
export {
  copy,
  copyBroadcasted,
  cast,
  addConst,
  addParam,
  mulConst,
  mulParam,
  divConst,
  divParam,
  normConst,
  normParam,
  ignore,
  broadcastConst,
  broadcastParam,
  splitComplex,
  combineComplex,
  type ArrayType,
  type RealOf,
} from './library/transformations.ts';
export { pureParallel, pureParallelFromTransformation, type PureParallelSpec } from './library/pure-parallel.ts';
export { spreadOverGrid, workGroupSize } from './library/parallel.ts';
export {
  predicate,
  predicateSum,
  predicateProduct,
  predicateMax,
  predicateMin,
  type Predicate,
  type PredicateOptions,
} from './library/predicates.ts';
export { transpose } from './library/transpose.ts';
export { reduce, type ReduceOptions } from './library/reduce.ts';
export type { StructParams } from './library/fieldwise.ts';
export { scan, type ScanOptions } from './library/scan.ts';
export {
  matrixMul,
  DEFAULT_TILES,
  type MatmulTiles,
  type MatrixMulOptions,
  type ProductDType,
} from './library/matrixmul.ts';
export { tileMatmul, matmulVectorViews, vectorViewArrays } from './library/matmul-tiling.ts';
export {
  configProblem,
  layoutProblem,
  workGroupOf,
  DEFAULT_MATMUL,
  FLOAT4_SGEMM,
  type MatmulConfig,
  type MatmulLayout,
} from './library/matmul-config.ts';
export { aPanelPadding } from './library/matmul-fetch.ts';
export {
  describeMatmulShape,
  matmulShapeOf,
  sgemmProblemName,
  tunedMatrixMulConfig,
  type MatmulShape,
} from './library/matmul-tuned.ts';
export { roll, rollInplace } from './library/roll.ts';
export { fftShift } from './library/fftshift.ts';
export { dht, type DhtOptions } from './library/dht.ts';
export {
  hermite,
  harmonic,
  hRoots,
  getSpatialPoints,
  getSpatialGridAndWeights,
  getSpatialGrid,
  getSpatialWeights,
  getTransformationMatrix,
} from './library/dht-grid.ts';
export { entrywiseNorm } from './library/norm.ts';
export {
  philox,
  threefry,
  bijectionComputation,
  keyGenerator,
  uniformInteger,
  uniformFloat,
  normalBm,
  gamma,
  vonmises,
  cbrng,
  CBRNG,
  type Bijection,
  type KeyGenerator,
  type Seed,
  type Sampler,
  type RawWords,
  type RandomsType,
  type WordDtype,
} from './library/cbrng/index.ts';
export { fft, type FFTOptions } from './library/fft/fft.ts';
