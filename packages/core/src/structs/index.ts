/** Struct dtypes: their description, their layouts by each language's rules, and their values on the host. */
export {
  fieldArray,
  isStructDType,
  sameStruct,
  structDType,
  structsInOrder,
  type FieldArray,
  type FieldType,
  type StructDType,
  type StructField,
} from './struct-dtype.ts';
export {
  alignmentOf,
  sizeOf,
  structLayout,
  structLeaves,
  type FieldLayout,
  type LaidOutElement,
  type LaidOutType,
  type StructLayout,
  type StructLayoutRules,
  type StructLeaf,
} from './layout.ts';
export { packStructs, unpackStructs, type StructScalar, type StructValue } from './host.ts';
