/** A kernel for `loom tune --auto`'s test: `out[i] = 2*a[i]`, untransformed. */
import { kernel } from '@loom/dsl';

export const scale = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]', { name: 'scale' }).dtypes({ a: 'float32' });
