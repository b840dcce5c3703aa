/**
 * What the builder's `.attach` needs of a transformation (@loom/computation's `Transformation`),
 * written out here so that @loom/dsl's declarations name no type of @loom/computation: it is an
 * optional peer, and an app without it must type-check too. A `Transformation` is one of these.
 */
import type { DType, LoopKernel } from '@loom/core';

/** A transformation's parameter (computation's `ParamSpec`): an input array (i), an output array (o), or a scalar (s). */
export interface TransformationParam {
  readonly name: string;
  readonly role: 'i' | 'o' | 's';
  /** Absent: the connector's dtype. */
  readonly dtype?: DType;
  /** Arrays only; absent: the connector's shape. */
  readonly shape?: readonly (number | string)[];
}

/** A transformation as `.attach` takes it: its parameters, its connectors, and the means to fuse itself into a kernel. */
export interface AttachableTransformation<
  P extends readonly TransformationParam[] = readonly TransformationParam[],
  C extends string = string,
> {
  readonly name: string;
  readonly params: P;
  readonly connectors: readonly C[];
  /** @loom/computation's `attach(knl, argName, this, connector, mapping)`. */
  attachTo(knl: LoopKernel, argName: string, connector: string, mapping?: Readonly<Record<string, string>>): LoopKernel;
}
