"""How each PyTorch operator becomes ``tgc`` ops.

One table keyed by operator name serves the tracer (``torch.add``,
``Tensor.add``, ``F.linear``, ...) and the FX importer (the same functions,
method names, and ``torch.ops.aten.*`` overloads). Every handler receives
the real eager result, so dtypes follow PyTorch's promotion rules exactly;
result sizes are computed here, static where PyTorch's rules make them
static and dynamic (``?``) otherwise, never guessed from the example.

The handlers live in one module per operator family; importing them
registers them in ``HANDLERS`` (``core.op``):

- ``core``: the table, dispatch, result binding and shared helpers;
- ``elementwise``, ``reductions``, ``shapes``, ``nn``, ``factories``;
- ``convolution``: 1-d and 2-d, transposed, ``padding="same"``;
- ``pooling``: ``max_pool2d`` with indices and its backward (training);
- ``scatter``: ``scatter_add``, ``index_add``, ``index_put`` with
  ``accumulate=True`` (an embedding's backward): ``tgc.scatter_add``;
- ``random``: training dropout (``native_dropout``, ``bernoulli``) from
  ``tgc.philox_uniform`` and the graph's per-call seed;
- ``composite``: operators written with the others' ops (masks, fills,
  nearest upsampling and padding as gathers, constant factories).
- ``movement``: flip, rot90, roll, slice/select_scatter, diag_embed;
- ``formulas``: lerp, cross, kl_div, cumsum, prod;
- ``einsum``: sums, permutations and batched matmuls (and ``bilinear``);
- ``rearrange``: diagonal/trace, channel and pixel shuffles, counting
  (``count_nonzero``, ``bucketize``), ``threshold_backward``, ``zero_``.

A new operator goes into its family's module with ``@op("name", ...)``.
"""

from . import core, elementwise, shapes, reductions, nn, convolution, factories, composite, rearrange, movement, formulas, einsum, pooling, scatter, random  # noqa: F401
from .core import HANDLERS, dispatch, func_name, op  # noqa: F401
from .factories import dense_constant  # noqa: F401
