"""Optimizer steps through ``tgc.compile(opt.step)`` (docs/training.md,
"The optimizer step").

``torch.optim``'s ``step`` is Python over lists of tensors: on CUDA the
``foreach`` path runs a dozen passes over every parameter (for AdamW:
weight decay, the first moment's lerp, the second moment's mul and
addcmul, sqrt, div, add, addcdiv), each a kernel that reads and writes
whole tensors. TGC compiles the same arithmetic, per (device, dtype)
bucket of a parameter group, into one traced function whose elementwise
chains fuse: one kernel per parameter reads the parameter, its gradient
and its moments once and writes the parameter and the moments once.

What it keeps from PyTorch, so that compiled and eager steps mix:

- the state lives in ``opt.state`` under PyTorch's keys (``step`` a CPU
  float tensor, ``exp_avg``, ``exp_avg_sq``, ``max_exp_avg_sq``,
  ``momentum_buffer``), initialized as PyTorch initializes it, so
  ``state_dict`` / ``load_state_dict`` and an eager ``opt.step()`` work
  on it;
- hyperparameters are read from ``param_groups`` at every call: ``lr``
  and the step count (bias corrections) are inputs of the compiled
  function (a small tensor of per-parameter numbers), never constants, so
  a learning-rate schedule does not recompile; the others (betas, eps,
  weight decay, momentum, ...) are constants of the trace, and a change
  compiles again;
- the arithmetic and its order are those of PyTorch's own step (the
  ``foreach`` implementation's: ``lerp`` for the first moment where
  PyTorch has ``_foreach_lerp_``, ``mul`` and ``add`` before, as 1.13);
- parameters without a gradient are skipped, as PyTorch skips them.

Supported: ``SGD`` (momentum, dampening, nesterov, weight decay,
maximize), ``Adam`` and ``AdamW`` (weight decay, amsgrad, maximize), f32
and f64 parameters, dense gradients. Anything else (another optimizer
class, ``capturable``/``differentiable``, sparse or complex tensors,
half-precision parameters, a step count on the GPU) is ``Unsupported``,
which ``fallback=True`` turns into an eager ``opt.step()`` with a warning.
"""

from __future__ import annotations

import math
import warnings
import weakref
from typing import Any, Callable, Dict, List, Optional, Tuple

import torch

from ._graph import Unsupported

_LERP = hasattr(torch, "_foreach_lerp_")  # PyTorch 2.x's first moment
# PyTorch 1.13's SGD records a None momentum buffer without momentum; 2.x
# records none.
_SGD_NONE_BUFFER = int(torch.__version__.split(".")[0]) < 2
_DTYPES = (torch.float32, torch.float64)  # the parameters' dtypes compiled
_CLASSES = ("SGD", "Adam", "AdamW")


def optimizer_of(fn: Any) -> Optional[torch.optim.Optimizer]:
    """The optimizer whose ``step`` `fn` is (a bound method, possibly the
    wrapper an LR scheduler installs), or None."""
    opt = getattr(fn, "__self__", None)
    if isinstance(opt, torch.optim.Optimizer):
        func = getattr(fn, "__func__", None)
        if func is getattr(type(opt), "step", None) or getattr(fn, "__name__", "") == "step":
            return opt
        return None
    if getattr(fn, "_with_counter", False) or getattr(fn, "_wrapped_by_lr_sched", False):
        # An LR scheduler replaced opt.step with a function that holds a
        # weak reference to the optimizer (1.13: `with_counter`, 2.x:
        # `wrap_step`).
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if isinstance(value, weakref.ref) and isinstance(value(), torch.optim.Optimizer):
                return value()
    return None


def _scalar_dtype() -> torch.dtype:
    return torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32


class CompiledOptimizerStep:
    """``tgc.compile(opt.step)``: calls as ``opt.step(closure=None)``."""

    def __init__(self, opt: torch.optim.Optimizer, **compile_kwargs):
        self.opt = opt
        self.kind = type(opt).__name__
        self.compile_kwargs = compile_kwargs
        self.fallback = bool(compile_kwargs.get("fallback", False))
        # (group index, device, dtype, constants) -> CompiledFunction
        self.compiled: Dict[Tuple, Any] = {}
        self.numbers: Dict[Tuple, torch.Tensor] = {}
        self.eager_reason: Optional[str] = None
        self.eager_calls = 0
        self.__name__ = f"{self.kind}.step"

    # -- the call ------------------------------------------------------------

    def __call__(self, closure: Optional[Callable] = None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        if self.eager_reason is None:
            # Everything that makes a step unsupported is found before any
            # tensor changes: PyTorch's step then runs on untouched state.
            why = self._unsupported()
            if why:
                e = Unsupported(f"{self.__name__}: {why}")
                if not self.fallback:
                    raise e
                self.eager_reason = str(e)
                warnings.warn(f"tgc: {self.__name__} runs eagerly: {e}")
        if self.eager_reason is not None:
            self.eager_calls += 1
            self.opt.step()
            return loss
        with torch.no_grad():
            for index, group in enumerate(self.opt.param_groups):
                self._group_step(index, group)
        # What torch.optim.lr_scheduler's wrapper of opt.step counts.
        if hasattr(self.opt, "_step_count"):
            self.opt._step_count += 1
        self.opt._opt_called = True
        return loss

    def _unsupported(self) -> Optional[str]:
        if self.kind not in _CLASSES or type(self.opt).__module__.split(".")[:2] != ["torch",
                                                                                  "optim"]:
            return (f"{type(self.opt).__name__} is not one of the optimizers TGC compiles "
                    f"({', '.join(_CLASSES)})")
        for hooks in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks"):
            if getattr(self.opt, hooks, None):
                return "step hooks are registered"
        module = getattr(torch.optim, "optimizer", None)
        for hooks in ("_global_optimizer_pre_hooks", "_global_optimizer_post_hooks"):
            if getattr(module, hooks, None):
                return "global optimizer step hooks are registered"
        for group in self.opt.param_groups:
            for flag in ("capturable", "differentiable", "fused"):
                if group.get(flag):
                    return f"{flag}=True"
            if isinstance(group.get("lr"), torch.Tensor):
                return "a tensor learning rate"
            state = self.opt.state
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if grad.is_sparse:
                    return "a sparse gradient"
                if p.dtype not in _DTYPES:  # (complex ones too)
                    return f"a {p.dtype} parameter (f32 and f64 are compiled)"
                step = state[p].get("step") if p in state else None
                if step is not None and (not isinstance(step, torch.Tensor) or
                                         not step.is_cpu):
                    return "a step count that is not a CPU tensor (capturable or fused state)"
        return None

    # -- one parameter group ---------------------------------------------------

    def _group_step(self, index: int, group: Dict[str, Any]) -> None:
        buckets: Dict[Tuple[torch.device, torch.dtype], List[torch.Tensor]] = {}
        for p in group["params"]:
            if p.grad is not None:
                buckets.setdefault((p.device, p.dtype), []).append(p)
        for (device, dtype), ps in buckets.items():
            if self.kind == "SGD":
                self._sgd(index, group, device, dtype, ps)
            else:
                self._adam(index, group, device, dtype, ps)

    def _function(self, key: Tuple, make: Callable[[], Callable]):
        fn = self.compiled.get(key)
        if fn is None:
            from . import compile as tgc_compile

            body = make()
            body.__name__ = body.__qualname__ = f"{self.kind.lower()}_step"
            fn = self.compiled[key] = tgc_compile(body, **self.compile_kwargs)
        return fn

    def _numbers(self, key: Tuple, rows: List[List[float]], dtype, device) -> torch.Tensor:
        """The step's per-parameter numbers in a buffer kept per compiled
        function: the same address every step, so a CUDA graph replays
        without patching its kernels (one host-to-device copy, in stream
        order after the previous step's kernels read it)."""
        host = torch.tensor(rows, dtype=dtype)
        buf = self.numbers.get(key)
        if buf is None or buf.shape != host.shape:
            buf = self.numbers[key] = torch.empty(host.shape, dtype=dtype, device=device)
        buf.copy_(host)
        return buf

    def _run(self, key: Tuple, make: Callable, roles: List[List[torch.Tensor]],
             flags: List[bool], rows: List[List[float]], dtype, device) -> None:
        """Runs the step over a bucket: `roles` are lists of tensors (the
        parameters, their gradients, each state), `make(count, flags)`
        traces the step over `count` parameters; `rows` their numbers.

        On the GPU one function over the whole bucket (its kernels, one
        per parameter, replay as one CUDA graph). On the CPU one function
        per parameter shape, called per parameter: the host's call is cheap
        there, and a model's parameters have a few shapes, so a few small
        compiles replace one whose kernels (three per parameter on the CPU)
        took 15 s to compile for GPT-2's 148 parameters."""
        count = len(roles[0])
        if device.type != "cpu":
            k = key + (count, tuple(flags))
            numbers = self._numbers(k, rows, dtype, device)
            fn = self._function(k, lambda: make(count, list(flags)))
            fn(*[t for role in roles for t in role], numbers)
            return
        numbers = torch.tensor(rows, dtype=dtype)
        for i in range(count):
            tensors = [role[i] for role in roles]
            shape = tuple(tuple(t.shape) + tuple(t.stride()) for t in tensors)
            k = key + (1, (flags[i],), shape)
            fn = self._function(k, lambda: make(1, [flags[i]]))
            fn(*tensors, numbers[i:i + 1])

    # -- Adam and AdamW ------------------------------------------------------

    def _adam(self, index, group, device, dtype, ps: List[torch.Tensor]) -> None:
        beta1, beta2 = (float(b) for b in group["betas"])
        lr, eps, wd = float(group["lr"]), float(group["eps"]), float(group["weight_decay"])
        amsgrad, maximize = bool(group.get("amsgrad")), bool(group.get("maximize"))
        decoupled = bool(group.get("decoupled_weight_decay", self.kind == "AdamW"))
        steps = []
        # New states' step counts are elements of one tensor (each a 0-d
        # view, as PyTorch's own 0-d CPU tensors behave): one add counts a
        # step of them all, where _foreach_add_ over 148 CPU scalars took
        # 0.3-0.4 ms of host time.
        fresh = [p for p in ps if len(self.opt.state[p]) == 0]
        counts = torch.zeros(len(fresh), dtype=_scalar_dtype()) if fresh else None
        for i, p in enumerate(fresh):
            self.opt.state[p]["step"] = counts[i]
        made = set(map(id, fresh))
        for p in ps:
            state = self.opt.state[p]
            if id(p) in made:
                state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                if amsgrad:
                    state["max_exp_avg_sq"] = torch.zeros_like(
                        p, memory_format=torch.preserve_format)
            steps.append(state["step"])
        base = steps[0]._base
        if base is not None and base.numel() == len(steps) and \
                all(step._base is base for step in steps):
            base.add_(1)  # every count of the tensor belongs to this bucket
        else:
            torch._foreach_add_(steps, 1)
        # One read of every count (usually all equal), a row per count.
        by_count: Dict[float, List[float]] = {}
        rows = []
        for n in torch.stack(steps).tolist():
            row = by_count.get(n)
            if row is None:
                bc1, bc2 = 1 - beta1 ** n, 1 - beta2 ** n
                row = by_count[n] = [1 - lr * wd, (lr / bc1) * -1, math.sqrt(bc2)]
            rows.append(row)
        consts = (beta1, beta2, eps, wd, amsgrad, maximize, decoupled)
        on_cuda = device.type == "cuda"

        def make(count, flags):
            def adam_step(*ts):
                p_, g_, m_, v_ = ts[:count], ts[count:2 * count], ts[2 * count:3 * count], \
                    ts[3 * count:4 * count]
                mx_ = ts[4 * count:5 * count] if amsgrad else ()
                nums = ts[-1]
                for i in range(count):
                    p, g, m, v = p_[i], g_[i], m_[i], v_[i]
                    row = nums[i]
                    if maximize:
                        g = torch.neg(g)
                    if wd != 0:
                        if decoupled:
                            p.mul_(row[0])
                        else:
                            g = torch.add(g, p, alpha=wd)
                    if _LERP:
                        m.lerp_(g, 1 - beta1)
                    else:
                        m.mul_(beta1).add_(g, alpha=1 - beta1)
                    v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
                    if amsgrad:
                        mx_[i].copy_(torch.maximum(mx_[i], v))
                        denom = mx_[i].sqrt()
                    else:
                        denom = v.sqrt()
                    denom = denom.div(row[2]).add(eps)
                    # addcdiv with the step size as a tensor, associated as
                    # ATen's kernels associate it on each device.
                    update = row[1] * (m / denom) if on_cuda else (row[1] * m) / denom
                    p.add_(update)
            return adam_step

        state = [self.opt.state[p] for p in ps]
        roles = [list(ps), [p.grad for p in ps], [s["exp_avg"] for s in state],
                 [s["exp_avg_sq"] for s in state]]
        if amsgrad:
            roles.append([s["max_exp_avg_sq"] for s in state])
        self._run((index, device, dtype, consts), make, roles, [False] * len(ps), rows,
                  dtype, device)

    # -- SGD ------------------------------------------------------------------

    def _sgd(self, index, group, device, dtype, ps: List[torch.Tensor]) -> None:
        lr, wd = float(group["lr"]), float(group["weight_decay"])
        momentum, dampening = float(group["momentum"]), float(group["dampening"])
        nesterov, maximize = bool(group["nesterov"]), bool(group.get("maximize"))
        count = len(ps)
        bufs: List[Optional[torch.Tensor]] = []
        fresh: List[bool] = []
        for p in ps:
            if momentum == 0 and _SGD_NONE_BUFFER:
                self.opt.state[p]["momentum_buffer"] = None  # as 1.13 records it
            buf = self.opt.state[p].get("momentum_buffer") if momentum != 0 else None
            if momentum != 0 and buf is None:
                # PyTorch's first step clones the gradient into the buffer.
                buf = torch.empty_like(p.grad)
                self.opt.state[p]["momentum_buffer"] = buf
                fresh.append(True)
            else:
                fresh.append(False)
            bufs.append(buf)
        consts = (wd, momentum, dampening, nesterov, maximize)

        def make(count, fresh):
            def sgd_step(*ts):
                p_, g_ = ts[:count], ts[count:2 * count]
                b_ = ts[2 * count:3 * count] if momentum != 0 else ()
                nums = ts[-1]
                for i in range(count):
                    p, g = p_[i], g_[i]
                    if maximize:
                        g = torch.neg(g)
                    if wd != 0:
                        g = torch.add(g, p, alpha=wd)
                    if momentum != 0:
                        buf = b_[i]
                        if fresh[i]:
                            buf.copy_(g)
                        else:
                            buf.mul_(momentum).add_(g, alpha=1 - dampening)
                        g = torch.add(g, buf, alpha=momentum) if nesterov else buf
                    p.add_(g * nums[i][0])
            return sgd_step

        roles = [list(ps), [p.grad for p in ps]] + ([bufs] if momentum != 0 else [])
        self._run((index, device, dtype, consts), make, roles, fresh, [[-lr]] * count,
                  dtype, device)

    # -- reports -----------------------------------------------------------------

    def _tgc_explain(self):
        from ._explain import Explanation

        parts = [f.explain() for f in self.compiled.values()]
        out = Explanation(compiles=0, graphs=[], guards=[], recompile_reasons=[],
                          compile_ms=[], hits=[], fallbacks=self.eager_calls,
                          name=self.__name__, eager_reason=self.eager_reason)
        if self.eager_reason:
            out.fallback_reasons.append(f"{self.__name__} runs eagerly: {self.eager_reason}")
        for e in parts:
            out.compiles += e.compiles
            out.graphs += e.graphs
            out.guards += e.guards
            out.recompile_reasons += e.recompile_reasons
            out.compile_ms += e.compile_ms
            out.hits += e.hits
            out.fallbacks += e.fallbacks
            out.fallback_reasons += e.fallback_reasons
            out.graph_breaks += e.graph_breaks
            out.specializations += e.specializations
        return out
