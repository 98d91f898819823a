"""What the model holds besides its tensors' values, changed after a compile:
each change must recompile (or be found again), never leave the old answer
in place (tgc._object_guards; found by a sweep of user idioms, 2026-11-30).
Each case failed before: the compiled function kept the old submodule,
tensor, attribute or global."""

import pytest
import torch
import torch.nn as nn

import tgc
from conftest import assert_same

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@torch.no_grad()
def test_a_replaced_submodule_without_parameters():
    x = torch.randn(3, 4)
    m = nn.Sequential(nn.ReLU())
    c = tgc.compile(m)
    assert_same(c(x), m(x))
    m[0] = nn.Tanh()
    assert_same(c(x), m(x))
    d = nn.ModuleDict({"act": nn.ReLU()})
    f = tgc.compile(lambda x: d["act"](x))
    assert_same(f(x), d["act"](x))
    d["act"] = nn.Sigmoid()
    assert_same(f(x), d["act"](x))


class Sub(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x * self.scale


class Top(nn.Module):
    def __init__(self):
        super().__init__()
        self.sub = Sub(3.0)

    def forward(self, x):
        return self.sub(x)


def test_a_submodule_replaced_by_another_of_its_class():
    x = torch.ones(2)
    m = Top()
    c = tgc.compile(m)
    assert_same(c(x), m(x))
    m.sub = Sub(1.0)  # the old one's scale stayed compiled in
    assert_same(c(x), m(x))
    m.sub.scale = 4.0  # and the new one's was not guarded
    assert_same(c(x), m(x))
    assert "self.sub is the object the trace read" in " ".join(tgc.explain(c).recompile_reasons)


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


@torch.no_grad()
def test_a_module_list_that_grows_or_shrinks():
    torch.manual_seed(0)
    x = torch.randn(2, 4)
    m = Stack()
    c = tgc.compile(m)
    assert_same(c(x), m(x))
    m.layers.append(nn.Linear(4, 4))
    assert_same(c(x), m(x))
    del m.layers[0]
    assert_same(c(x), m(x))
    seq = nn.Sequential(nn.Linear(4, 4))
    cs = tgc.compile(seq)
    assert_same(cs(x), seq(x))
    seq.append(nn.ReLU())
    assert_same(cs(x), seq(x))


@torch.no_grad()
def test_a_parameter_set_to_none_and_back():
    x = torch.randn(3, 4)
    m = nn.Linear(4, 4)
    c = tgc.compile(m)
    assert_same(c(x), m(x))
    bias = m.bias
    m.bias = None  # the old bias was still added
    assert_same(c(x), m(x))
    m.bias = bias
    assert_same(c(x), m(x))


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.e = nn.Embedding(5, 4)
        self.o = nn.Linear(4, 5, bias=False)
        self.o.weight = self.e.weight

    def forward(self, i):
        return self.o(self.e(i))


@torch.no_grad()
def test_tied_weights_untied():
    torch.manual_seed(0)
    i = torch.tensor([1, 2])
    m = Tied()
    c = tgc.compile(m)
    assert_same(c(i), m(i))
    m.o.weight = nn.Parameter(torch.zeros(5, 4))  # one graph input held both
    assert_same(c(i), m(i))
    assert "were one tensor when traced (tied)" in " ".join(tgc.explain(c).recompile_reasons)


class Offset(nn.Module):
    def __init__(self):
        super().__init__()
        self.offset = torch.ones(1)  # a plain attribute, not a buffer

    def forward(self, x):
        return x + self.offset


GT = torch.ones(2)
G = 3.0


def test_tensors_held_as_attributes_globals_and_closures_rebound():
    x = torch.zeros(2)
    m = Offset()
    c = tgc.compile(m)
    assert_same(c(x), m(x))
    m.offset = torch.full((1,), 5.0)
    assert_same(c(x), m(x))

    def uses_global(x):
        return x + GT

    g = tgc.compile(uses_global)
    assert_same(g(x), uses_global(x))
    globals()["GT"] = torch.full((2,), 7.0)
    try:
        assert_same(g(x), uses_global(x))
    finally:
        globals()["GT"] = torch.ones(2)

    t = torch.ones(2)

    def closure(x):
        return x * t

    h = tgc.compile(closure)
    assert_same(h(x + 1), closure(x + 1))
    t = torch.full((2,), 3.0)  # noqa: F841 - the closure's cell changes
    assert_same(h(x + 1), closure(x + 1))


def test_a_global_that_was_a_number_then_a_tensor_then_a_number():
    x = torch.ones(2)

    def f(x):
        return x * G

    c = tgc.compile(f)
    try:
        assert_same(c(x), f(x))
        globals()["G"] = torch.tensor(5.0)
        assert_same(c(x), f(x))
        globals()["G"] = 2.0  # the tensor specialization served it
        assert_same(c(x), f(x))
    finally:
        globals()["G"] = 3.0


SCALE = 2.0


def _helper(t):
    return t * SCALE


def test_globals_of_helper_functions():
    x = torch.ones(2)

    def f(x):
        return _helper(x) + 1

    c = tgc.compile(f)
    try:
        assert_same(c(x), f(x))
        globals()["SCALE"] = 5.0
        assert_same(c(x), f(x))
        assert "global SCALE of _helper" in " ".join(tgc.explain(c).recompile_reasons)
    finally:
        globals()["SCALE"] = 2.0


class Config:
    def __init__(self):
        self.scale = 1.0
        self.mode = "mul"


CFG = Config()


class UsesConfig(nn.Module):
    def __init__(self):
        super().__init__()
        self.config = Config()

    def forward(self, x):
        return x * self.config.scale if self.config.mode == "mul" else x + self.config.scale


def test_attributes_of_plain_objects():
    x = torch.ones(2)
    m = UsesConfig()
    c = tgc.compile(m)
    assert_same(c(x), m(x))
    m.config.scale = 3.0  # a config object's attribute
    assert_same(c(x), m(x))
    m.config.mode = "add"
    assert_same(c(x), m(x))

    def f(x):
        return x * CFG.scale

    g = tgc.compile(f)
    assert_same(g(x), f(x))
    CFG.scale = 4.0
    try:
        assert_same(g(x), f(x))
    finally:
        CFG.scale = 1.0

    class A:
        def __init__(self):
            self.m = 2.0

        def fwd(self, x):
            return x * self.m

    a = A()
    h = tgc.compile(a.fwd)
    assert_same(h(x), a.fwd(x))
    a.m = 5.0  # the bound method's self
    assert_same(h(x), a.fwd(x))


@torch.no_grad()
def test_a_function_held_by_the_instance():
    x = torch.tensor([-1.0, 2.0])
    m = nn.Linear(2, 2)
    m.forward = lambda inp: inp * 100  # before the compile: guarded
    c = tgc.compile(m)
    assert_same(c(x), m(x))
    m.forward = lambda inp: inp * 10
    assert_same(c(x), m(x))


@torch.no_grad()
def test_state_guards_keep_the_native_path():
    # The new guards are dict entries checked in C: steady calls stay native.
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), Top())
    c = tgc.compile(m)
    x = torch.randn(2, 8)
    for _ in range(4):
        assert_same(c(x), m(x))
    if hasattr(c, "_native_calls"):
        assert c._native_calls() == 3
    assert tgc.explain(c).compiles == 1


def test_grad_mode_read_by_the_function():
    # The inference trace ran under no_grad whatever the caller's mode, and
    # the mode was no guard.
    def f(x):
        return x * 2 if torch.is_grad_enabled() else x * 3

    c = tgc.compile(f)
    x = torch.ones(2)
    assert_same(c(x), f(x))
    with torch.no_grad():
        assert_same(c(x), f(x))
    assert_same(c(x), f(x))
    assert tgc.explain(c).compiles == 2
    g = tgc.compile(lambda x: x * 2)  # not read: one specialization serves both
    g(x)
    with torch.no_grad():
        g(x)
    assert tgc.explain(g).compiles == 1


class SetsConfigOnFirstUse(nn.Module):
    def __init__(self):
        super().__init__()
        self.config = Config()
        self.config.autoset = False

    def forward(self, x):
        if not self.config.autoset:  # (as Hugging Face sets config fields lazily)
            self.config.autoset = True
        return x * self.config.scale


def test_a_config_field_the_forward_sets_recompiles_once():
    # Guarded as read: the trace took the branch of its first value, so the
    # call after it recompiles once (a dropped guard served the first
    # value's branch for good); a field the code never names is no guard.
    x = torch.ones(2)
    m = SetsConfigOnFirstUse()
    c = tgc.compile(m)
    for _ in range(3):
        assert_same(c(x), m(x))
    assert tgc.explain(c).compiles == 2
    m.config.step = 7  # not named by the model's code
    assert_same(c(x), m(x))
    assert tgc.explain(c).compiles == 2
    m.config.scale = 3.0
    assert_same(c(x), m(x))
    assert tgc.explain(c).compiles == 3


class Warmup(nn.Module):
    def __init__(self):
        super().__init__()
        self.cfg = Config()
        self.cfg.warmup = True

    def forward(self, x):
        if self.cfg.warmup:
            self.cfg.warmup = False
            return x * 0
        return x + 1


def test_a_field_the_forward_changes_is_guarded_as_read():
    x = torch.ones(3)
    m, e = Warmup(), Warmup()
    c = tgc.compile(m)
    for _ in range(3):
        assert_same(c(x), e(x))


@torch.no_grad()
def test_containers_inside_containers():
    # Reached by iterating, never through __getattr__: their entries were
    # not guarded (torchvision's Conv2dNormActivation inside `features`).
    torch.manual_seed(0)
    x = torch.randn(2, 4)
    m = nn.Sequential(nn.Sequential(nn.Linear(4, 4), nn.ReLU()), nn.Linear(4, 4))
    c = tgc.compile(m)
    assert_same(c(x), m(x))
    m[0][1] = nn.Tanh()
    assert_same(c(x), m(x))
    m[0].append(nn.Sigmoid())
    assert_same(c(x), m(x))


MODE = "on"


def _applies(x):
    return x * 2


def _first(x):
    return _applies(x)


def _second(x):
    # Runs no operator itself: its frame is seen only under _applies',
    # a frame at the address the first call's frame had.
    return _applies(x) if MODE == "on" else x


def test_globals_of_a_function_whose_frame_reuses_an_address():
    def f(x):
        return _second(_first(x))

    x = torch.ones(3)
    c = tgc.compile(f)
    try:
        assert_same(c(x), f(x))
        globals()["MODE"] = "off"
        assert_same(c(x), f(x))
    finally:
        globals()["MODE"] = "on"


GR = torch.ones(2)


def test_rebound_tensors_are_found_again_without_a_recompile():
    # As parameters by name: a global or plain attribute tensor rebound at
    # every step is another input, not another graph (an identity guard
    # recompiled each time, and raised RecompileError after 8).
    x = torch.zeros(2)

    def f(x):
        return x + GR

    c = tgc.compile(f)
    try:
        for k in range(10):
            globals()["GR"] = torch.full((2,), float(k))
            assert_same(c(x), f(x))
        assert tgc.explain(c).compiles == 1
        globals()["GR"] = torch.ones(3)  # another shape: the compiled guards decide
        assert_same(c(torch.zeros(3)), f(torch.zeros(3)))
        globals()["GR"] = 2.0  # no tensor at all: stale
        assert_same(c(x), f(x))
    finally:
        globals()["GR"] = torch.ones(2)
    m = Offset()
    cm = tgc.compile(m)
    for k in range(10):
        m.offset = torch.full((1,), float(k))
        assert_same(cm(x), m(x))
    assert tgc.explain(cm).compiles == 1


class Dims:
    def __init__(self):
        self.hidden, self.heads = 4, 2

    @property
    def head(self):
        return self.hidden // self.heads


def _head_dim(c):  # runs no operator: its frame is never on a traced stack
    return c.hidden // c.heads


class ReadsConfigIndirectly(nn.Module):
    def __init__(self, how):
        super().__init__()
        self.cfg, self.how = Dims(), how

    def forward(self, x):
        if self.how == "helper":
            return x.reshape(-1, _head_dim(self.cfg))
        if self.how == "property":
            return x.reshape(-1, self.cfg.head)
        return x.reshape(-1, getattr(self.cfg, "heads"))


@pytest.mark.parametrize("how", ["helper", "property", "getattr"])
def test_config_attributes_read_outside_the_models_code(how):
    # Guarding only the attribute names the model's code names missed
    # these reads (a review finding): every constant attribute is guarded.
    x = torch.arange(8.0)
    m = ReadsConfigIndirectly(how)
    c = tgc.compile(m)
    assert_same(c(x), m(x))
    m.cfg.heads = 4
    assert_same(c(x), m(x))


WT = torch.ones(3)


class HoldsTheGlobal(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = WT

    def forward(self, x):
        return x * self.w + WT


def test_a_tensor_read_from_two_places_is_not_found_again_in_one():
    # self.w and the global WT were one graph input found again through
    # the first read only: rebinding either gave the other's tensor.
    x = torch.ones(3)
    m = HoldsTheGlobal()
    c = tgc.compile(m)
    try:
        assert_same(c(x), m(x))
        globals()["WT"] = torch.full((3,), 10.0)
        assert_same(c(x), m(x))
        m.w = torch.full((3,), 3.0)
        assert_same(c(x), m(x))
    finally:
        globals()["WT"] = torch.ones(3)


def test_float_attributes_are_guarded_by_their_bits():
    """0.0 == -0.0, so an attribute changed from one to the other kept the
    first specialization (1 / (x * s): inf for -inf); a review of the
    argument-key fix found it in the Python and the native checks."""
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.s = 0.0

        def forward(self, x):
            return 1 / (x * self.s)

    m = M()
    c = tgc.compile(m)
    x = torch.ones(2)
    for _ in range(3):  # (the native path serves the later calls)
        assert torch.equal(c(x), m(x))
    m.s = -0.0
    assert torch.equal(c(x), m(x))
    m.s = float("nan")
    for _ in range(3):
        torch.testing.assert_close(c(x), m(x), equal_nan=True)
    assert tgc.explain(c).compiles == 3
