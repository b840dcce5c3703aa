"""
Writes PyTorch's answers for elementwise type promotion, the reference that
test/elementwise-promotion.test.ts checks @loom/elementwise against.

    python3 packages/elementwise/scripts/promotion-table.py > test/elementwise-promotion-table.json

For every promotion method and every pair (and single) of operands — a tensor of
one or more dimensions ('t:DTYPE'), a zero-dimensional tensor ('z:DTYPE') or a
Python scalar ('s:bool', 's:int', 's:float', 's:complex') — it records
torch._prims_common.elementwise_dtypes' (computation dtype, result dtype), or the
error PyTorch raises. It also records what real operators return (torch.add,
torch.sin, torch.eq, torch.abs, torch.pow, torch.where), so the table is checked
against PyTorch itself, and torch.can_cast for out= arguments.
"""
import json
import sys

import torch
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND as Kind
from torch._prims_common import elementwise_dtypes

DTYPES = {
    'bool': torch.bool, 'uint8': torch.uint8, 'int8': torch.int8, 'int16': torch.int16,
    'int32': torch.int32, 'int64': torch.int64, 'uint16': torch.uint16, 'uint32': torch.uint32,
    'uint64': torch.uint64, 'float16': torch.float16, 'float32': torch.float32,
    'float64': torch.float64, 'complex64': torch.complex64, 'complex128': torch.complex128,
}
NAMES = {v: k for k, v in DTYPES.items()}
SCALARS = {'bool': True, 'int': 3, 'float': 2.5, 'complex': 1 + 2j}
METHODS = ['DEFAULT', 'NO_OPMATH', 'INT_TO_FLOAT', 'ALWAYS_BOOL', 'COMPLEX_TO_FLOAT', 'BOOL_TO_LONG']


def operand(desc):
    kind, name = desc.split(':')
    if kind == 's':
        return SCALARS[name]
    shape = (2,) if kind == 't' else ()
    return torch.ones(shape, dtype=DTYPES[name])


def describe(fn):
    try:
        got = fn()
        return '/'.join(NAMES[d] for d in got) if isinstance(got, tuple) else NAMES[got]
    except Exception as e:  # PyTorch's own refusal is the expected answer
        return 'error: ' + str(e).split('\n')[0][:120]


descs = [f't:{d}' for d in DTYPES] + [f'z:{d}' for d in DTYPES] + [f's:{s}' for s in SCALARS]
promotion = {}
for a in descs:
    row = {'': [describe(lambda m=m: elementwise_dtypes(operand(a), type_promotion_kind=getattr(Kind, m))) for m in METHODS]}
    for b in descs:
        if a.startswith('s:') and b.startswith('s:'):
            continue
        row[b] = [describe(lambda m=m: elementwise_dtypes(operand(a), operand(b), type_promotion_kind=getattr(Kind, m))) for m in METHODS]
    promotion[a] = row

# real operators: the result dtype PyTorch's kernels produce
def op_dtype(fn):
    return describe(lambda: fn().dtype)

operators = {}
for a in descs:
    if a.startswith('s:'):
        continue
    x = operand(a)
    operators[a] = {
        'sin': op_dtype(lambda: torch.sin(x)),
        'abs': op_dtype(lambda: torch.abs(x)),
    }
    for b in descs:
        y = operand(b)
        operators[a][b] = {
            'add': op_dtype(lambda: torch.add(x, y)),
            'eq': op_dtype(lambda: torch.eq(x, y)),
            'pow': op_dtype(lambda: torch.pow(x, y)),
            'true_divide': op_dtype(lambda: torch.true_divide(x, y)),
        }

can_cast = {a: {b: torch.can_cast(DTYPES[a], DTYPES[b]) for b in DTYPES} for a in DTYPES}

json.dump({
    'torch': torch.__version__,
    'methods': METHODS,
    'promotion': promotion,
    'operators': operators,
    'canCast': can_cast,
}, sys.stdout, separators=(',', ':'))
