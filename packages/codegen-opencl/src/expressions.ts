/**
 * The OpenCL C expression printer: the C printer (@loom/codegen-cfamily) in the OpenCL dialect.
 */
import type { NameTypes } from '@loom/core';
import { CExpressionPrinter } from '@loom/codegen-cfamily';
import { openclDialect } from './dialect.ts';

/** Prints expressions as OpenCL C (`new ClExpressionPrinter(typeOf).print(e)`). */
export class ClExpressionPrinter extends CExpressionPrinter {
  constructor(typeOf: NameTypes) {
    super(openclDialect, typeOf);
  }
}
